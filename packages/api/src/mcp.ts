/**
 * `/mcp`: the agent tools of `@svc/mcp` over stateless Streamable HTTP, for hosted agents that
 * cannot run `svc mcp`. Bearer credentials only (no session cookie). Each tool call is the REST
 * call it stands for, made in process with the caller's own Authorization header, so it passes the
 * same authentication, route permission, core authorization, validation, rate limits and quotas
 * as if the agent had called the route itself (docs/mcp.md says why this design).
 */
import { hkdfSync } from 'node:crypto';
import { ErrorCode, ProblemError } from '@svc/core';
import type { confirmations, Transport } from '@svc/mcp';
import type { Context, Hono } from 'hono';
import type { AppEnv } from './env.ts';
import { type AuthDeps, expectedOrigin, identify } from './middleware/auth.ts';

/** API Gateway ends a request after 29 s: a wait must answer well before. */
const waitLimitSeconds = 20;

export interface McpSettings {
  /**
   * The installation's secret (`CURSOR_KEY`), the same in every instance: the key that signs and
   * checks destroy and update confirmations is derived from it, so any instance can check what
   * another issued.
   */
  secret: string;
}

type McpModule = typeof import('@svc/mcp');
let mcpModule: Promise<McpModule> | undefined;
/**
 * The MCP SDK (with its JSON Schema validators) is a third of the API's bundle: loaded by the first
 * `/mcp` request, not at every cold start (`npm run bench:bundle`).
 */
const loadMcp = () => {
  mcpModule ??= import('@svc/mcp');
  return mcpModule;
};

/** The tools' REST calls, answered by this same app in process with the caller's own credential. */
function inProcess(app: Hono<AppEnv>, c: Context<AppEnv>): Transport {
  const authorization = c.req.header('authorization');
  return async (request) => {
    const search = new URLSearchParams(request.query);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-request-id': c.get('requestId'),
      ...request.headers,
      ...(request.credential && authorization !== undefined ? { authorization } : {}),
      ...(request.json === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const response = await app.request(`${request.path}${search.size ? `?${search}` : ''}`, {
      method: request.method,
      headers,
      ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
    });
    const body = parsedBody(await response.text());
    return { status: response.status, headers: Object.fromEntries(response.headers), body };
  };
}

/** JSON parsed; anything else as text, for the client to refuse. */
function parsedBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Same subject, same credential: the session an idempotency key or a confirmation is bound to. */
function sessionOf(identity: AppEnv['Variables']['identity']): string {
  return [identity.subject, identity.credential.kind, identity.credential.id ?? ''].join('\n');
}

export function mcpEndpoint(
  app: Hono<AppEnv>,
  deps: { auth: AuthDeps; settings: McpSettings; version: string },
): void {
  // A key of its own (HKDF, labelled): confirmations and cursors never share one.
  const signingKey = new Uint8Array(
    hkdfSync('sha256', deps.settings.secret, '', 'svc mcp confirmations', 32),
  );
  let signer: ReturnType<typeof confirmations> | undefined;

  app.post('/mcp', async (c) => {
    // A browser page of another origin (or a DNS-rebound name) must not drive the tools.
    const origin = c.req.header('origin');
    if (origin !== undefined && origin !== expectedOrigin(deps.auth, c)) {
      throw new ProblemError(ErrorCode.Forbidden, `/mcp refuses requests from the origin ${origin}.`);
    }
    const identity = await identify(deps.auth, c, { cookies: false });
    const mcp = await loadMcp();
    signer ??= mcp.confirmations(signingKey);
    return mcp.handleHttp(c.req.raw, {
      transport: inProcess(app, c),
      session: sessionOf(identity),
      allowWrites: c.req.query('allow_writes') === 'true',
      confirmations: signer,
      waitLimitSeconds,
      howToAllowWrites: 'whoever configures the agent can point it at /mcp?allow_writes=true',
      version: deps.version,
      // Logged as an unhandled error is; the agent gets a problem without internals.
      onInternalError: (error) => {
        const { name, message, stack } = error as Error;
        c.get('log')({ level: 'error', msg: 'mcp tool failed', error: { name, message, stack } });
      },
    });
  });

  app.on(['GET', 'DELETE'], '/mcp', () => {
    // Stateless: no server-sent event stream to open, no session to end.
    throw new ProblemError(ErrorCode.MethodNotAllowed, '/mcp is stateless: only POST is served.', {
      headers: { allow: 'POST' },
    });
  });
}
