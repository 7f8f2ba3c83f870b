// The HTTP face of the API server: URL layout, verbs, query parameters, content types, Status
// errors and watch streaming, as kubectl and @kubernetes/client-node speak them. This file routes a
// request to its room in http-server/: the non-resource paths, the admin paths, discovery, or a
// resource (collection, object, subresource). Every request is authenticated and authorized first.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { forbiddenRequest } from '../auth/refusal.ts';
import { requestAttributes } from '../auth/request-info.ts';
import { ApiError, internal, methodNotAllowed, pathNotFound, unauthorized } from './errors.ts';
import { readBody } from './http-server/bodies.ts';
import { type ApiHandlerDeps, type RequestInfo, resourceCall, type Target } from './http-server/context.ts';
import { serveNonResource } from './http-server/non-resource.ts';
import { boolParam } from './http-server/query.ts';
import { serveResource } from './http-server/resource.ts';
import { sendError, sendJson } from './http-server/responses.ts';
import { liftWatch, resolve, verbOf } from './http-server/routing.ts';

export function createApiHandler(deps: ApiHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof ApiError) sendError(res, error);
      else {
        process.stderr.write(`local-cluster: ${(error as Error).stack ?? String(error)}\n`);
        sendError(res, internal((error as Error).message));
      }
    });
  };
}

async function handle(deps: ApiHandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://local');
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : url.pathname;
  const user = deps.authenticate(req.headers.authorization);
  if (!user) throw unauthorized();
  const attributes = requestAttributes(req.method ?? 'GET', path, url.searchParams);
  const decision = deps.authorize(user, attributes);
  if (!decision.allowed) throw forbiddenRequest(user, attributes, decision.reason);
  if (serveNonResource(deps.api.registry, path, res)) return;
  if (deps.admin && path.startsWith('/_')) {
    const body = await readBody(req);
    if (await deps.admin(req, res, body)) return;
  }
  const segments = path
    .split('/')
    .filter((s) => s !== '')
    .map(decodeURIComponent);
  if (segments[0] !== 'api' && segments[0] !== 'apis') throw pathNotFound();
  liftWatch(segments, url);
  const { target, discovery } = resolve(deps.api.registry, deps.serverAddress, segments);
  await injectFault(deps, req, path, url, target);
  if (discovery !== undefined) {
    if (req.method !== 'GET') throw methodNotAllowed();
    return sendJson(res, 200, discovery);
  }
  if (target) return serveResource(resourceCall(deps, req, res, url, target, user));
  throw pathNotFound();
}

/** Fault injection sees the request in Kubernetes' terms, and may answer it with an error. */
async function injectFault(
  deps: ApiHandlerDeps,
  req: IncomingMessage,
  path: string,
  url: URL,
  target: Target | undefined,
): Promise<void> {
  if (!deps.beforeRequest) return;
  const method = req.method ?? 'GET';
  const info: RequestInfo = {
    method,
    path,
    verb: target ? verbOf(method, target.name, boolParam(url.searchParams, 'watch')) : 'get',
    group: target?.rt.group,
    resource: target?.rt.resource,
    subresource: target?.subresource,
    namespace: target?.namespace,
    name: target?.name,
  };
  const injected = await deps.beforeRequest(info);
  if (injected) throw injected;
}
