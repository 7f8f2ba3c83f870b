// A resource path: the checks every verb shares, then the collection, one object or a subresource.

import { methodNotAllowed, pathNotFound } from '../errors.ts';
import { refuseServedDefinitionWrite } from '../served-definitions.ts';
import { serveAccessReview, serveSelfSubjectReview } from './access-review.ts';
import { serveCollection } from './collection.ts';
import type { ResourceCall } from './context.ts';
import { serveObject } from './object.ts';
import { servePodLog } from './pod-log.ts';
import { verbOf } from './routing.ts';
import { serveScale } from './scale.ts';

export async function serveResource(call: ResourceCall): Promise<void> {
  const { api, rt, namespace, name, subresource, method } = call;
  if (rt.namespaced && namespace === undefined && name !== undefined) throw pathNotFound();
  if (rt.verbs && !rt.verbs.includes(verbOf(method, name, call.watch))) throw methodNotAllowed();
  if (rt.group === 'authorization.k8s.io') return serveAccessReview(call);
  if (rt.group === 'authentication.k8s.io') return serveSelfSubjectReview(call);
  if (method === 'PUT' || method === 'PATCH' || method === 'DELETE') {
    refuseServedDefinitionWrite(rt, () =>
      name !== undefined
        ? [name]
        : api.list(rt, namespace, call.selectors).items.map((o) => o.metadata.name ?? ''),
    );
  }
  if (subresource !== undefined) {
    const allowed =
      (subresource === 'status' && rt.hasStatus) ||
      (subresource === 'scale' && rt.hasScale) ||
      (subresource === 'log' && rt.group === '' && rt.resource === 'pods');
    if (!allowed || name === undefined) throw pathNotFound();
  }
  if (name === undefined) return serveCollection(call);
  if (subresource === 'log') {
    if (method !== 'GET') throw methodNotAllowed();
    return servePodLog(call, name);
  }
  if (subresource === 'scale') return serveScale(call, name);
  return serveObject(call, name);
}
