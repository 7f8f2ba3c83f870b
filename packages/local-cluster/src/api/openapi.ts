// The OpenAPI v3 documents of a real API server: an index, and per group-version the operations
// and the schemas of its kinds. kubectl reads them for `explain` and to learn that the server
// validates fields itself (the `fieldValidation` parameter on PATCH). Built-in kinds get the
// upstream Kubernetes definitions; kinds stored without a schema (Gateway API, custom resources)
// a schemaless object, as a CustomResourceDefinition without a schema publishes.

import { createHash } from 'node:crypto';
import type { Registry, ResourceType } from './registry.ts';
import { type Schema, schemasOf, upstreamDefinitions } from './upstream-definitions.ts';

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
  const schemas = types.every((rt) => !rt.builtin) ? {} : schemasOf(upstreamDefinitions(), types);
  for (const rt of types) {
    const described = Object.values(schemas).some((schema) => servesKind(schema, rt));
    if (!described) schemas[schemaName(rt)] = schemalessKind(rt);
  }
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'v1.32.0-local' },
    paths,
    components: { schemas },
  };
}

function servesKind(schema: Schema, rt: ResourceType): boolean {
  const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as {
    group: string;
    version: string;
    kind: string;
  }[];
  return gvks.some((g) => g.group === rt.group && g.version === rt.version && g.kind === rt.kind);
}

/** The name an API server gives a custom resource's schema: the group reversed, the version, the kind. */
function schemaName(rt: ResourceType): string {
  return [...rt.group.split('.').reverse(), rt.version, rt.kind].join('.');
}

function schemalessKind(rt: ResourceType): Schema {
  return {
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    'x-kubernetes-group-version-kind': [{ group: rt.group, version: rt.version, kind: rt.kind }],
  };
}
