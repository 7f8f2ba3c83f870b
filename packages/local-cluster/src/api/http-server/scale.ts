// The scale subresource: a Scale view of a workload's replicas, read, replaced or patched.

import { badRequest, methodNotAllowed, unsupportedMediaType } from '../errors.ts';
import { clone, isObject } from '../json.ts';
import { PatchType } from '../operations.ts';
import { jsonPatch } from '../patch/json-patch.ts';
import { mergePatch } from '../patch/merge-patch.ts';
import { formatSelector } from '../selectors.ts';
import type { Deployment, KubeObject } from '../types.ts';
import { mediaType, parseJson, readBody } from './bodies.ts';
import type { ResourceCall } from './context.ts';
import { sendJson } from './responses.ts';

function toScale(o: KubeObject): unknown {
  const d = o as Deployment;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: o.metadata.name,
      namespace: o.metadata.namespace,
      uid: o.metadata.uid,
      resourceVersion: o.metadata.resourceVersion,
      creationTimestamp: o.metadata.creationTimestamp,
    },
    spec: { replicas: d.spec.replicas ?? 1 },
    status: { replicas: d.status?.replicas ?? 0, selector: formatSelector(d.spec.selector) },
  };
}

/** The Scale a PUT or PATCH asks for. */
async function requestedScale({ req, method }: ResourceCall, current: KubeObject): Promise<unknown> {
  if (method === 'PUT') return parseJson(await readBody(req));
  if (method !== 'PATCH') throw methodNotAllowed();
  const type = mediaType(req);
  const body = parseJson(await readBody(req));
  if (type === PatchType.json) return jsonPatch(toScale(current), body);
  if (type === PatchType.merge || type === PatchType.strategic || type === PatchType.apply) {
    return mergePatch(toScale(current), body);
  }
  throw unsupportedMediaType(type);
}

export async function serveScale(call: ResourceCall, name: string): Promise<void> {
  const { api, res, rt, namespace, fieldManager, dryRun } = call;
  const current = api.get(rt, namespace, name);
  if (call.method === 'GET') return sendJson(res, 200, toScale(current));
  const scale = await requestedScale(call, current);
  if (!isObject(scale) || !isObject(scale.spec) || typeof scale.spec.replicas !== 'number') {
    throw badRequest('a Scale needs spec.replicas');
  }
  const rv = isObject(scale.metadata) ? scale.metadata.resourceVersion : undefined;
  const next = clone(current) as Deployment;
  next.spec.replicas = scale.spec.replicas;
  if (typeof rv === 'string' && rv !== '') next.metadata.resourceVersion = rv;
  const updated = api.update(rt, namespace, name, next, { fieldManager, dryRun });
  return sendJson(res, 200, toScale(updated));
}
