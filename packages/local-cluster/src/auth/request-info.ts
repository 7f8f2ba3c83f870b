// A request in RBAC's terms, read from its method and path as the API server's RequestInfoFactory
// reads it (staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go): discovery and every
// path outside /api and /apis are non-resource requests whose verb is the lowercased method; a
// resource request's verb is get, list or watch for a GET (a collection is list, `?watch=1` or
// the old `/watch/` prefix watch), create, update, patch, delete, or deletecollection for a DELETE
// on a collection. A dry run asks for the same verb as the write.

import { boolParam } from '../api/http-server/query.ts';
import type { RequestAttributes } from './rules.ts';

const methodVerbs: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** `status` and `finalize` of a namespace are subresources, not resources inside it. */
const namespaceSubresources = new Set(['status', 'finalize']);

/** The name a list or watch is narrowed to by `fieldSelector=metadata.name=x`, as upstream takes it. */
function selectedName(query: URLSearchParams): string {
  const selector = query.get('fieldSelector') ?? '';
  const terms = selector.split(',').filter((t) => t !== '');
  if (terms.length !== 1) return '';
  const match = /^metadata\.name(?:==?)(.*)$/.exec(terms[0] ?? '');
  return match?.[1] ?? '';
}

export function requestAttributes(method: string, path: string, query: URLSearchParams): RequestAttributes {
  const nonResource: RequestAttributes = { resourceRequest: false, verb: method.toLowerCase(), path };
  const parts = path.split('/').filter((p) => p !== '');
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  let rest = parts.slice(1).map(decodeURIComponent);
  let group = '';
  if (prefix === 'apis') {
    if (rest.length < 3) return nonResource;
    group = rest[0] ?? '';
    rest = rest.slice(1);
  } else if (rest.length < 2) return nonResource;
  rest = rest.slice(1);
  let verb: string;
  if (rest[0] === 'watch') {
    verb = 'watch';
    rest = rest.slice(1);
    if (rest.length === 0) return nonResource;
  } else verb = methodVerbs[method] ?? '';
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1] ?? '';
    if (rest.length > 2 && !namespaceSubresources.has(rest[2] ?? '')) rest = rest.slice(2);
  }
  const [resource = '', name = '', subresource = ''] = rest;
  let selected = name;
  if (name === '' && verb === 'get') {
    verb = boolParam(query, 'watch') ? 'watch' : 'list';
    selected = selectedName(query);
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { resourceRequest: true, verb, group, resource, subresource, namespace, name: selected };
}
