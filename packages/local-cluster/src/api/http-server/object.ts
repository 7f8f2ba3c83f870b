// One object (or its status subresource): get, update, patch, delete.

import { methodNotAllowed, successStatus } from '../errors.ts';
import { PatchType } from '../operations.ts';
import { includeObjectParam, toTable, wantsTable } from '../table.ts';
import { mediaType, parseApplyBody, parseJson, readBody, readObject } from './bodies.ts';
import type { ResourceCall } from './context.ts';
import { deleteOptions } from './delete-options.ts';
import { boolParam } from './query.ts';
import { sendJson } from './responses.ts';

export async function serveObject(call: ResourceCall, name: string): Promise<void> {
  const status = call.subresource === 'status' ? ('status' as const) : undefined;
  switch (call.method) {
    case 'GET':
      return getObject(call, name);
    case 'PUT':
      return updateObject(call, name, status);
    case 'PATCH':
      return patchObject(call, name, status);
    case 'DELETE':
      if (status) throw methodNotAllowed();
      return deleteObject(call, name);
    default:
      throw methodNotAllowed();
  }
}

function getObject({ api, req, res, query, rt, namespace }: ResourceCall, name: string): void {
  const object = api.get(rt, namespace, name);
  if (wantsTable(req.headers.accept)) {
    const metadata = { resourceVersion: object.metadata.resourceVersion };
    sendJson(res, 200, toTable(rt, [object], metadata, includeObjectParam(query.get('includeObject'))));
    return;
  }
  sendJson(res, 200, object);
}

async function updateObject(
  call: ResourceCall,
  name: string,
  subresource: 'status' | undefined,
): Promise<void> {
  const { api, req, res, rt, namespace, fieldManager, dryRun } = call;
  const body = await readObject(req, subresource === undefined);
  const updated = api.update(rt, namespace, name, body, { fieldManager, dryRun, subresource });
  return sendJson(res, 200, updated);
}

async function patchObject(
  call: ResourceCall,
  name: string,
  subresource: 'status' | undefined,
): Promise<void> {
  const { api, req, res, query, rt, namespace, dryRun } = call;
  const type = mediaType(req);
  const text = await readBody(req);
  const body = type === PatchType.apply ? parseApplyBody(text) : parseJson(text);
  const { object, created } = api.patch(rt, namespace, name, type, body, {
    // An apply names its manager; every other patch falls back on the client's name.
    fieldManager: query.get('fieldManager') ?? (type === PatchType.apply ? undefined : call.fieldManager),
    dryRun,
    force: boolParam(query, 'force'),
    subresource,
  });
  return sendJson(res, created ? 201 : 200, object);
}

async function deleteObject(
  { api, req, res, query, rt, namespace }: ResourceCall,
  name: string,
): Promise<void> {
  const options = await deleteOptions(req, query);
  const { object, deleted } = api.delete(rt, namespace, name, options);
  if (deleted) return sendJson(res, 200, successStatus(rt, name, object.metadata.uid));
  return sendJson(res, 200, object);
}
