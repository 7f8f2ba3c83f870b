// JSON answers and Status errors, with the headers a real API server sends.

import type { ServerResponse } from 'node:http';
import type { ApiError } from '../errors.ts';

export function sendJson(
  res: ServerResponse,
  code: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  const headers: Record<string, string> = {};
  const retry = error.details?.retryAfterSeconds;
  if (retry !== undefined) headers['Retry-After'] = String(retry);
  sendJson(res, error.code, error.toStatus(), headers);
}
