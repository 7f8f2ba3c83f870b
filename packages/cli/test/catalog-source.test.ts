/** `svc catalog validate|apply --file` and `svc source list` against the API in process. */
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Builds } from '@svc/core';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, repoRoot, svc } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

const demo = JSON.parse(readFileSync(join(repoRoot, 'packages', 'local', 'demo', 'catalog.json'), 'utf8'));
const file = (body: unknown) => {
  const path = join(tmpdir(), `catalog-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
};
const run = (args: string[], stdin?: string) =>
  svc(args, stdin === undefined ? { apiUrl: stack.apiUrl } : { apiUrl: stack.apiUrl, stdin });

describe('svc catalog', () => {
  it('validate prints { valid: true, problems: [] } for the demo manifest', async () => {
    const result = await run(['catalog', 'validate', '--file', file(demo)]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toEqual({ valid: true, problems: [] });
  });

  it('validate of an invalid manifest prints the problems and exits 1', async () => {
    const broken = structuredClone(demo);
    broken.projects[0].default_baseline = 'nowhere';
    const result = await run(['catalog', 'validate', '--file', '-'], JSON.stringify(broken));
    expect(result.code).toBe(1);
    expect(result.json().valid).toBe(false);
    expect(result.json().problems.length).toBeGreaterThan(0);
    expect(result.problem()).toMatchObject({ code: 'catalog_invalid' });
  });

  it('apply registers a manifest; applying it again changes nothing', async () => {
    const extended = structuredClone(demo);
    extended.projects[0].name = 'shop';
    for (const baseline of extended.projects[0].baselines) baseline.namespace = 'shop';
    const path = file(extended);
    const first = await run(['catalog', 'apply', '--file', path]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({ changed: true, projects: [{ name: 'shop', changed: true }] });
    const again = await run(['catalog', 'apply', '--file', path]);
    expect(again.json()).toMatchObject({ changed: false });
    const created = await run(['composition', 'create', '--name', 'x', '--project', 'shop', '--inherit-all']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({ project: 'shop', baseline: demo.projects[0].default_baseline });
  });

  it('apply of an invalid manifest is the server 422 problem, nothing written', async () => {
    const result = await run(['catalog', 'apply', '--file', '-'], JSON.stringify({ projects: 'none' }));
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ status: 422, code: 'validation_failed' });
  });
});

describe('svc source list', () => {
  beforeAll(async () => {
    for (const [component, commit] of [
      ['service-b', 'a'],
      ['service-c', 'b'],
    ] as const) {
      const response = await fetch(`${stack.apiUrl}/v1/projects/demo/builds`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          component,
          repository: 'acme/shop',
          commit_sha: commit.repeat(40),
          ref: 'main',
          image: `registry.example.com/demo/${component}@sha256:${commit.repeat(64)}`,
        }),
      });
      expect(response.status).toBe(201);
    }
  });

  it('lists published builds, filtered by --component, --repository and --commit', async () => {
    const all = await run(['source', 'list', '--project', 'demo']);
    expect(all.code, all.stderr).toBe(0);
    expect(v.parse(Builds.BuildList, all.json()).items).toHaveLength(2);
    const b = await run(['source', 'list', '--project', 'demo', '--component', 'service-b']);
    expect(b.json().items.map((x: { component: string }) => x.component)).toEqual(['service-b']);
    const byCommit = await run(['source', 'list', '--project', 'demo', '--commit', 'b'.repeat(40)]);
    expect(byCommit.json().items).toEqual([expect.objectContaining({ component: 'service-c' })]);
    const none = await run(['source', 'list', '--project', 'demo', '--repository', 'acme/other']);
    expect(none.json()).toEqual({ items: [], next_cursor: null });
  });

  it('an unknown project is the server 404', async () => {
    const result = await run(['source', 'list', '--project', 'nope']);
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ status: 404 });
  });
});
