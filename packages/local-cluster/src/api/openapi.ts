// A minimal OpenAPI v3 index. kubectl reads it to learn that the server validates fields itself
// (the `fieldValidation` parameter on PATCH), and then skips client-side schema validation, which
// would need full schemas this server does not have.

import { createHash } from 'node:crypto';
import type { Registry, ResourceType } from './registry.ts';

function gvPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

export function openApiRoot(registry: Registry): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  const gvs = new Set(registry.all().map((t) => `${t.group}\u0000${t.version}`));
  for (const gv of gvs) {
    const [group = '', version = ''] = gv.split('\u0000');
    const path = gvPath(group, version);
    const hash = createHash('sha256')
      .update(JSON.stringify(openApiGroupVersion(registry, group, version)))
      .digest('hex')
      .slice(0, 32)
      .toUpperCase();
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${hash}` };
  }
  return { paths };
}

const QUERY_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty'];

function operation(rt: ResourceType, verb: string): unknown {
  return {
    operationId: `${verb}${rt.kind}`,
    parameters: QUERY_PARAMS.map((name) => ({
      name,
      in: 'query',
      schema: { type: name === 'force' ? 'boolean' : 'string' },
      uniqueItems: true,
    })),
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': verb,
    'x-kubernetes-group-version-kind': { group: rt.group, version: rt.version, kind: rt.kind },
  };
}

export function openApiGroupVersion(registry: Registry, group: string, version: string): unknown | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  const base = `/${gvPath(group, version)}`;
  for (const rt of types) {
    const item = rt.namespaced
      ? `${base}/namespaces/{namespace}/${rt.resource}/{name}`
      : `${base}/${rt.resource}/{name}`;
    paths[item] = {
      get: operation(rt, 'get'),
      put: operation(rt, 'put'),
      patch: operation(rt, 'patch'),
      delete: operation(rt, 'delete'),
    };
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0-local' },
    paths,
    components: { schemas: {} },
  };
}
