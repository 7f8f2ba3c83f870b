// DeleteOptions, from the query or the body as clients send either.

import type { IncomingMessage } from 'node:http';
import { badRequest, unsupportedMediaType } from '../errors.ts';
import { isObject } from '../json.ts';
import type { DeleteOptions, PropagationPolicy } from '../operations.ts';
import { PROTOBUF_MEDIA_TYPE } from '../protobuf/protobuf-body.ts';
import { mediaType, parseJson, readBody } from './bodies.ts';

export async function deleteOptions(req: IncomingMessage, q: URLSearchParams): Promise<DeleteOptions> {
  const text = await readBody(req);
  const type = mediaType(req);
  if (text !== '' && type === PROTOBUF_MEDIA_TYPE) throw unsupportedMediaType(type);
  const body = text.trim() === '' ? {} : parseJson(text);
  const b = isObject(body) ? body : {};
  let policy = (q.get('propagationPolicy') ?? b.propagationPolicy) as string | undefined;
  const orphan = q.get('orphanDependents') ?? b.orphanDependents;
  if (policy === undefined && (orphan === true || orphan === 'true')) policy = 'Orphan';
  if (policy !== undefined && policy !== 'Background' && policy !== 'Foreground' && policy !== 'Orphan') {
    throw badRequest(
      `propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  }
  const preconditions = isObject(b.preconditions)
    ? (b.preconditions as DeleteOptions['preconditions'])
    : undefined;
  const dryRun = q.get('dryRun') === 'All' || (Array.isArray(b.dryRun) && b.dryRun.includes('All'));
  return { propagationPolicy: policy as PropagationPolicy | undefined, preconditions, dryRun };
}
