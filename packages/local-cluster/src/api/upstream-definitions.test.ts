import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemasOf, upstreamDefinitions, upstreamSource } from './upstream-definitions.ts';

const refs = (value: unknown): string[] =>
  JSON.stringify(value)
    .match(/"\$ref":"[^"]*"/g)
    ?.map((ref) => ref.slice(8, -1)) ?? [];

describe('the upstream definitions', () => {
  it('are the file the npm package ships, unchanged', () => {
    const digest = createHash('sha256').update(readFileSync(upstreamSource.file)).digest('hex');
    expect(digest).toBe(upstreamSource.sha256);
  });

  it("give a kind its definition and every definition it reaches, referenced as OpenAPI v3's components", () => {
    const schemas = schemasOf(upstreamDefinitions(), [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'io.k8s.api.apps.v1.Deployment',
        'io.k8s.api.core.v1.PodSpec',
        'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      ]),
    );
    const all = refs(schemas);
    expect(all.length).toBeGreaterThan(100);
    for (const ref of all) {
      expect(ref.startsWith('#/components/schemas/'), ref).toBe(true);
      expect(schemas[ref.slice('#/components/schemas/'.length)], ref).toBeDefined();
    }
    expect(Object.keys(schemas).some((name) => name.startsWith('io.k8s.api.networking'))).toBe(false);
  });

  it('wrap a reference that carries a description in allOf, as v3 ignores the siblings of $ref', () => {
    const schemas = schemasOf(upstreamDefinitions(), [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    const { properties } = schemas['io.k8s.api.apps.v1.Deployment'] as {
      properties: Record<string, unknown>;
    };
    const spec = properties.spec;
    expect(spec).toEqual({
      description: expect.stringContaining('desired behavior'),
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }],
    });
  });

  it('leave out a kind the release does not define', () => {
    expect(
      schemasOf(upstreamDefinitions(), [
        { group: 'gateway.networking.k8s.io', version: 'v1', kind: 'HTTPRoute' },
      ]),
    ).toEqual({});
  });
});
