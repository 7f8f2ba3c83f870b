// The URL layout of /api and /apis: discovery documents, or a resource path (namespace, name,
// subresource), and the verb a request is in Kubernetes' terms.

import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions } from '../discovery.ts';
import { pathNotFound } from '../errors.ts';
import type { Registry } from '../registry.ts';
import type { Target } from './context.ts';

export type Resolved = { target?: Target; discovery?: unknown };

/** The old `/api/v1/watch/…` form is the same request as `?watch=true`. */
export function liftWatch(segments: string[], url: URL): void {
  if (segments[2] === 'watch' && segments[0] === 'api') {
    segments.splice(2, 1);
    url.searchParams.set('watch', 'true');
  } else if (segments[3] === 'watch' && segments[0] === 'apis') {
    segments.splice(3, 1);
    url.searchParams.set('watch', 'true');
  }
}

export function resolve(registry: Registry, serverAddress: () => string, segments: string[]): Resolved {
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length === 1) return { discovery: apiVersions(serverAddress()) };
    group = '';
    version = segments[1] ?? '';
    rest = segments.slice(2);
  } else {
    if (segments.length === 1) return { discovery: apiGroupList(registry) };
    group = segments[1] ?? '';
    if (segments.length === 2) {
      const doc = apiGroupDocument(registry, group);
      if (!doc) throw pathNotFound();
      return { discovery: doc };
    }
    version = segments[2] ?? '';
    rest = segments.slice(3);
  }
  if (rest.length === 0) {
    const doc = apiResourceList(registry, group, version);
    if (!doc) throw pathNotFound();
    return { discovery: doc };
  }
  return { target: resourceTarget(registry, group, version, rest) };
}

function resourceTarget(registry: Registry, group: string, version: string, path: string[]): Target {
  let rest = path;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const candidate = registry.find(group, version, rest[2] ?? '');
    if (candidate?.namespaced) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
  }
  const rt = registry.find(group, version, rest[0] ?? '');
  if (!rt || rest.length > 3) throw pathNotFound();
  return { rt, namespace, name: rest[1], subresource: rest[2] };
}

export function verbOf(method: string, name: string | undefined, watch: boolean): string {
  if (method === 'GET') return name === undefined ? (watch ? 'watch' : 'list') : 'get';
  if (method === 'POST') return 'create';
  if (method === 'PUT') return 'update';
  if (method === 'PATCH') return 'patch';
  if (method === 'DELETE') return name === undefined ? 'deletecollection' : 'delete';
  return method.toLowerCase();
}
