// A collection: list (or watch), create, deletecollection.

import { methodNotAllowed } from '../errors.ts';
import { groupVersion } from '../registry.ts';
import { includeObjectParam, toTable, wantsTable } from '../table.ts';
import type { KubeObject } from '../types.ts';
import { readObject } from './bodies.ts';
import type { ResourceCall } from './context.ts';
import { deleteOptions } from './delete-options.ts';
import { intParam } from './query.ts';
import { sendJson } from './responses.ts';
import { serveWatch } from './watch-stream.ts';

export async function serveCollection(call: ResourceCall): Promise<void> {
  if (call.method === 'GET') return call.watch ? serveWatch(call) : listObjects(call);
  if (call.method === 'POST') return createObject(call);
  if (call.method === 'DELETE') return deleteCollection(call);
  throw methodNotAllowed();
}

function withoutTypeMeta(object: KubeObject): Omit<KubeObject, 'kind' | 'apiVersion'> {
  const { kind: _kind, apiVersion: _apiVersion, ...rest } = object;
  return rest;
}

function listObjects({ api, req, res, query, rt, namespace, selectors }: ResourceCall): void {
  const result = api.list(rt, namespace, {
    ...selectors,
    limit: intParam(query, 'limit'),
    continue: query.get('continue') ?? undefined,
  });
  const metadata = {
    resourceVersion: result.resourceVersion,
    ...(result.continue ? { continue: result.continue, remainingItemCount: result.remainingItemCount } : {}),
  };
  if (wantsTable(req.headers.accept)) {
    sendJson(res, 200, toTable(rt, result.items, metadata, includeObjectParam(query.get('includeObject'))));
    return;
  }
  sendJson(res, 200, {
    kind: rt.listKind,
    apiVersion: groupVersion(rt),
    metadata,
    items: rt.builtin ? result.items.map(withoutTypeMeta) : result.items,
  });
}

async function createObject({
  api,
  req,
  res,
  rt,
  namespace,
  fieldManager,
  dryRun,
}: ResourceCall): Promise<void> {
  if (rt.namespaced && namespace === undefined) throw methodNotAllowed();
  const body = await readObject(req);
  const created = api.create(rt, namespace, body, { fieldManager, dryRun });
  return sendJson(res, 201, created);
}

async function deleteCollection({
  api,
  req,
  res,
  query,
  rt,
  namespace,
  selectors,
}: ResourceCall): Promise<void> {
  const options = await deleteOptions(req, query);
  const deleted = api.deleteCollection(rt, namespace, selectors, options);
  return sendJson(res, 200, {
    kind: rt.listKind,
    apiVersion: groupVersion(rt),
    metadata: { resourceVersion: String(api.store.currentRv()) },
    items: deleted,
  });
}
