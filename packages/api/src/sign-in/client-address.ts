/**
 * The address a request came from, as the runtime saw it: API Gateway's `sourceIp` on Lambda, the
 * socket's peer on Node. Never a header the client wrote (`X-Forwarded-For` is not trusted: no proxy
 * of ours sits in front of the Node server).
 */
import { getConnInfo as nodeConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { getConnInfo as lambdaConnInfo } from 'hono/aws-lambda';

export function clientAddress(c: Context): string {
  const env = c.env as { requestContext?: unknown; incoming?: unknown } | undefined;
  if (env?.requestContext) return lambdaConnInfo(c).remote.address ?? 'unknown';
  if (env?.incoming) return nodeConnInfo(c).remote.address ?? 'unknown';
  return 'unknown';
}
