// The paths outside /api and /apis that need no credentials: health, version and OpenAPI.

import type { ServerResponse } from 'node:http';
import { versionInfo } from '../discovery.ts';
import { pathNotFound } from '../errors.ts';
import { openApiGroupVersion, openApiRoot } from '../openapi.ts';
import type { Registry } from '../registry.ts';
import { sendJson } from './responses.ts';

/** Answers `path` when it is one of these; false when it is not. */
export function serveNonResource(registry: Registry, path: string, res: ServerResponse): boolean {
  if (path === '/healthz' || path === '/livez' || path === '/readyz') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
    return true;
  }
  if (path === '/version') {
    sendJson(res, 200, versionInfo());
    return true;
  }
  if (path === '/openapi/v3') {
    sendJson(res, 200, openApiRoot(registry));
    return true;
  }
  if (!path.startsWith('/openapi/v3/')) return false;
  const parts = path.slice('/openapi/v3/'.length).split('/');
  const doc =
    parts[0] === 'api'
      ? openApiGroupVersion(registry, '', parts[1] ?? '')
      : openApiGroupVersion(registry, parts[1] ?? '', parts[2] ?? '');
  if (!doc) throw pathNotFound();
  sendJson(res, 200, doc);
  return true;
}
