// Request bodies: a size bound, JSON, protobuf for typed kubectl commands, and apply bodies.

import type { IncomingMessage } from 'node:http';
import { ApiError, badRequest, unsupportedMediaType } from '../errors.ts';
import { decodeProtobufObject, PROTOBUF_MEDIA_TYPE } from '../protobuf/protobuf-body.ts';

const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBodyBytes(req)).toString('utf8');
}

async function readBodyBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * An object to create or replace: JSON, or protobuf as kubectl's typed commands send it. The status
 * subresource reads JSON only, since the decoder declares no status messages.
 */
export async function readObject(req: IncomingMessage, acceptProtobuf = true): Promise<unknown> {
  const type = mediaType(req);
  if (type === PROTOBUF_MEDIA_TYPE && acceptProtobuf) return decodeProtobufObject(await readBodyBytes(req));
  if (type !== '' && type !== 'application/json') throw unsupportedMediaType(type);
  return parseJson(await readBody(req));
}

/** Apply bodies are YAML by name; kubectl and client-node send JSON, which is YAML's flow subset. */
export function parseApplyBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      'this server reads application/apply-patch+yaml bodies written as JSON (the flow subset of YAML); send the object as JSON',
    );
  }
}
