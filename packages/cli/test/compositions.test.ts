/**
 * Every composition command through the real executable against the whole service in process
 * (API, worker, local cluster; DynamoDB Local + fauxqs): compositions really roll out, fail and
 * get destroyed. stdout must be JSON that the server's own schemas accept.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checks, Compositions, Insight } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifestWithoutMessaging, image } from '@svc/local/demo';
import { useTestStack } from '@svc/local/testing';
import * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc, untilPhase } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

const run = (args: string[], env: Record<string, string> = {}) => svc(args, { apiUrl: stack.apiUrl, env });

async function ok(args: string[]) {
  const result = await run(args);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  return result.json();
}

async function created(...flags: string[]) {
  const result = await run(['composition', 'create', '--name', 'feature-x', ...flags]);
  expect(result.code, result.stderr).toBe(0);
  // A human hint at most: the component svc chose for --image.
  expect(result.stderr).toMatch(/^(svc: --image overrides [a-z0-9-]+, [^\n]*\n)?$/);
  return result.json();
}

describe('svc composition create', () => {
  it('uses the defaults: project demo, the baseline from the catalog, --image on the component named like it', async () => {
    const result = await run(['composition', 'create', '--name', 'feature-x', '--image', image('service-b')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      'svc: --image overrides service-b, the component of demo named like the image (--component chooses)\n',
    );
    const composition = result.json();
    expect(v.parse(Compositions.CompositionView, composition)).toBeTruthy();
    expect(composition).toMatchObject({
      project: 'demo',
      baseline: 'staging',
      name: 'feature-x',
      phase: 'created',
      generation: 1,
      ttl: '4h',
      message_isolation: false,
      overrides: { 'service-b': { image: image('service-b'), build_id: null } },
    });
  });

  it('sends every flag: --component, --override, --ttl, --expected-preview-revision', async () => {
    const composition = await created(
      '--project',
      'demo',
      '--baseline',
      'staging',
      '--image',
      image('service-a'),
      '--component',
      'service-a',
      '--override',
      `service-c=${image('service-c')}`,
      '--ttl',
      '1h30m',
      '--expected-preview-revision',
      'service-a=1',
    );
    expect(composition.ttl).toBe('1h30m');
    expect(Object.keys(composition.overrides).sort()).toEqual(['service-a', 'service-c']);
  });

  it('--image without --component overrides the component named like the image, never a default behind it', async () => {
    const result = await run([
      'composition',
      'create',
      '--name',
      'c-only',
      '--image',
      image('service-c', '5.1.0'),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      '--image overrides service-c, the component of demo named like the image',
    );
    expect(result.json().overrides).toEqual({
      'service-c': { image: image('service-c', '5.1.0'), build_id: null },
    });
  });

  it("--image named like no component: service-b in the local demo's project, said on stderr", async () => {
    const other = 'registry.example.com/demo/search-api:1.0.0';
    const result = await run(['composition', 'create', '--name', 'x', '--image', other]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("--image overrides service-b, the local demo's default");
    expect(Object.keys(result.json().overrides)).toEqual(['service-b']);
  });

  it('--image named like no component of another project asks for --component: exit 2, nothing created', async () => {
    const applied = await fetch(`${stack.apiUrl}/v1/catalog/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(demoManifestWithoutMessaging('inferred')),
    });
    expect(applied.status).toBe(200);
    const before = (await ok(['composition', 'list'])).items.length;
    const create = ['composition', 'create', '--name', 'x', '--project', 'inferred'];
    const result = await run([...create, '--image', 'registry.example.com/demo/search-api:1.0.0']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({
      code: 'invalid_argument',
      errors: [
        {
          path: '--component',
          message: expect.stringContaining('service-a, service-b, service-c, service-d'),
        },
      ],
    });
    expect((await ok(['composition', 'list'])).items.length).toBe(before);
    const named = await run([...create, '--image', image('service-d')]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).toContain(
      '--image overrides service-d, the component of inferred named like the image',
    );
  });

  it('--inherit-all creates a baseline-only preview', async () => {
    const composition = await created('--inherit-all');
    expect(composition.overrides).toEqual({});
    expect(composition.desired.inherited).toHaveLength(4);
  });

  it('--build selects a published build', async () => {
    const published = await fetch(`${stack.apiUrl}/v1/projects/demo/builds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        component: 'service-d',
        repository: 'acme/service-d',
        commit_sha: 'a'.repeat(40),
        ref: 'main',
        image: `registry.example.com/demo/service-d@sha256:${'b'.repeat(64)}`,
      }),
    });
    const build = (await published.json()) as { id: string; image: string };
    const composition = await created('--build', `service-d=${build.id}`);
    expect(composition.desired.images['service-d']).toMatchObject({ source: 'build', build_id: build.id });
  });

  it('--idempotency-key replays the first answer', async () => {
    const key = `key-${Date.now()}`;
    const first = await created('--inherit-all', '--idempotency-key', key);
    const again = await created('--inherit-all', '--idempotency-key', key);
    expect(again.id).toBe(first.id);
  });

  it('the server refuses what only it can know: an unknown component is a 422 problem on stderr, exit 1', async () => {
    const result = await run([
      'composition',
      'create',
      '--name',
      'x',
      '--override',
      `service-z=${image('z')}`,
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 422, code: 'unknown_reference' });
  });

  it('a stale --expected-preview-revision is a conflict: exit 4', async () => {
    const result = await run([
      'composition',
      'create',
      '--name',
      'x',
      '--inherit-all',
      '--expected-preview-revision',
      'service-b=7',
    ]);
    expect(result.code).toBe(4);
    expect(result.problem()).toMatchObject({ status: 409, code: 'preview_revision_changed' });
  });

  it('--message-isolation on a baseline without messaging is refused by the server, naming it', async () => {
    const applied = await fetch(`${stack.apiUrl}/v1/catalog/apply`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(demoManifestWithoutMessaging('quiet')),
    });
    expect(applied.status).toBe(200);
    const result = await run([
      'composition',
      'create',
      '--name',
      'x',
      '--project',
      'quiet',
      '--inherit-all',
      '--message-isolation',
    ]);
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ status: 422 });
    expect(result.problem().detail).toMatch(/messaging/);
  });

  it('an unknown project without --baseline is the server’s 422 naming /project: the CLI looks nothing up', async () => {
    const result = await run(['composition', 'create', '--name', 'x', '--project', 'nope', '--inherit-all']);
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({
      status: 422,
      code: 'unknown_reference',
      errors: [expect.objectContaining({ path: '/project' })],
    });
  });
});

describe('svc composition plan', () => {
  const file = (body: unknown) => {
    const path = join(tmpdir(), `plan-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(body));
    return path;
  };

  it('prints the plan of a create body', async () => {
    const plan = await ok([
      'composition',
      'plan',
      '--file',
      file({
        project: 'demo',
        baseline: 'staging',
        name: 'p',
        overrides: { 'service-b': { image: image('service-b') } },
      }),
    ]);
    expect(v.parse(Compositions.PlanView, plan)).toBeTruthy();
    expect(plan.blockers).toEqual([]);
    expect(plan.images['service-b'].image).toBe(image('service-b'));
  });

  it('a plan with blockers is printed on stdout and exits 1', async () => {
    const result = await run([
      'composition',
      'plan',
      '--file',
      file({ project: 'demo', baseline: 'staging', name: 'p', ttl: '48h' }),
    ]);
    expect(result.code).toBe(1);
    expect(result.json().blockers).toEqual([expect.objectContaining({ code: 'ttl_out_of_range' })]);
    expect(result.problem()).toMatchObject({ code: 'plan_blocked' });
  });
});

describe('reading, listing, updating and destroying', () => {
  let id: string;
  beforeAll(async () => {
    id = (await created('--image', image('service-b'))).id;
    const rolledOut = await run(['composition', 'wait', id, '--timeout', '30s']);
    expect(rolledOut.code, rolledOut.stderr).toBe(0);
  });

  it('get and inspect print the full composition as the worker rolled it out', async () => {
    const got = await ok(['composition', 'get', id]);
    expect(v.parse(Compositions.CompositionView, got)).toMatchObject({
      id,
      phase: 'ready',
      generation: 1,
      observed_generation: 1,
      endpoints: { public: { ready: true } },
      latest_operation: { kind: 'create', status: 'succeeded' },
      observed: {
        components: { 'service-b': { image: image('service-b'), ready: true, generation: 1 } },
        blockers: [],
      },
    });
    expect(await ok(['composition', 'inspect', id])).toEqual(got);
  });

  it('endpoints prints the preview URL and readiness', async () => {
    const endpoints = await ok(['composition', 'endpoints', id]);
    expect(v.parse(Compositions.CompositionEndpointsView, endpoints)).toMatchObject({
      id,
      phase: 'ready',
      endpoints: { public: { url: expect.stringContaining(`//${id}.preview.localhost:`), ready: true } },
    });
  });

  it('list prints { items, next_cursor }, filtered by --project, paged by --limit and --after', async () => {
    const all = await ok(['composition', 'list', '--project', 'demo']);
    expect(v.parse(Compositions.CompositionList, all).items.length).toBeGreaterThan(1);
    const first = await ok(['composition', 'list', '--limit', '1']);
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ok(['composition', 'list', '--limit', '1', '--after', first.next_cursor]);
    expect(second.items[0].id).not.toBe(first.items[0].id);
  });

  it('events prints the audit events newest first, --limit bounds them', async () => {
    const newest = await ok(['composition', 'events', id, '--limit', '1']);
    expect(v.parse(Compositions.EventList, newest).items).toEqual([
      expect.objectContaining({ type: 'ready', generation: 1 }),
    ]);
    const all = await ok(['composition', 'events', id, '--limit', '100']);
    const types = all.items.map((e: { type: string }) => e.type);
    expect(types.length).toBeGreaterThan(2);
    expect(types.at(0)).toBe('ready');
    expect(types.at(-1)).toBe('accepted');
  });

  it('an unknown id is the server 404 problem on stderr, exit 1', async () => {
    const result = await run(['composition', 'get', 'c-doesnotexist']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('update of a composition still being created is a conflict: exit 4', async () => {
    // A -slow image keeps the create rollout in progress for 30 s.
    const rolling = (await created('--image', image('service-b', '2.0.0-slow'))).id;
    try {
      const result = await run([
        'composition',
        'update',
        rolling,
        '--expected-generation',
        '1',
        '--override',
        `service-b=${image('service-b', '3.0.0')}`,
      ]);
      expect(result.code, result.stderr).toBe(4);
      expect(result.stdout).toBe('');
      expect(result.problem()).toMatchObject({ status: 409, code: 'operation_in_progress' });
      expect(await ok(['composition', 'get', rolling])).toMatchObject({
        phase: 'provisioning',
        generation: 1,
        overrides: { 'service-b': { image: image('service-b', '2.0.0-slow') } },
      });
    } finally {
      await run(['composition', 'destroy', rolling]);
    }
  });

  it('update sends the full desired set and a stale generation is exit 4; the worker rolls it out', async () => {
    const stale = await run(['composition', 'update', id, '--expected-generation', '2', '--inherit-all']);
    expect(stale.code).toBe(4);
    expect(stale.problem()).toMatchObject({ code: 'generation_mismatch' });
    const unknownBuild = await run([
      'composition',
      'update',
      id,
      '--expected-generation',
      '1',
      '--override',
      `service-a=${image('service-a', '3.0.0')}`,
      '--build',
      'service-c=b-none',
    ]);
    expect(unknownBuild.code).toBe(1);
    expect(unknownBuild.problem()).toMatchObject({ status: 422, code: 'unknown_reference' });
    const update = await run([
      'composition',
      'update',
      id,
      '--expected-generation',
      '1',
      '--image',
      image('service-b', '3.0.0'),
      '--override',
      `service-a=${image('service-a', '3.0.0')}`,
    ]);
    expect(update.code, update.stderr).toBe(0);
    // The component for --image is the one of the composition's project named like the image.
    expect(update.stderr).toContain(
      '--image overrides service-b, the component of demo named like the image',
    );
    const accepted = update.json();
    expect(v.parse(Compositions.CompositionView, accepted)).toMatchObject({
      generation: 2,
      phase: 'updating',
    });
    expect(Object.keys(accepted.overrides).sort()).toEqual(['service-a', 'service-b']);

    const rolledOut = await run(['composition', 'wait', id, '--timeout', '30s']);
    expect(rolledOut.code, rolledOut.stderr).toBe(0);
    expect(rolledOut.json()).toMatchObject({
      phase: 'ready',
      generation: 2,
      observed_generation: 2,
      latest_operation: { kind: 'update', status: 'succeeded' },
    });
    expect((await ok(['composition', 'get', id])).observed.components).toMatchObject({
      'service-a': { image: image('service-a', '3.0.0'), ready: true, generation: 2 },
      'service-b': { image: image('service-b', '3.0.0'), ready: true, generation: 2 },
    });
  });

  it('destroy answers the composition in phase destroying, and again when repeated once destroyed', async () => {
    const destroying = await ok(['composition', 'destroy', id]);
    expect(v.parse(Compositions.CompositionView, destroying)).toMatchObject({
      id,
      phase: 'destroying',
      latest_operation: { kind: 'destroy' },
    });
    const destroyed = await untilPhase(stack.apiUrl, id, ['destroyed']);
    expect(destroyed).toMatchObject({
      endpoints: { public: { ready: false } },
      latest_operation: { kind: 'destroy', status: 'succeeded' },
    });
    expect(await ok(['composition', 'destroy', id])).toMatchObject({ id, phase: 'destroyed' });
    const status = await run(['composition', 'wait', id, '--timeout', '1s']);
    expect(status.code).toBe(1);
    expect(v.parse(Compositions.CompositionStatusView, status.json()).phase).toBe('destroyed');
    expect(status.problem()).toMatchObject({ code: 'composition_ended' });
    expect(status.problem().detail).toContain('will not become ready');
  });
});

describe('logs, diagnosis, verification and events call their documented paths', () => {
  it.each([
    [
      ['composition', 'logs', 'c-abc'],
      '/v1/compositions/c-abc/components/service-b/logs?tail_lines=200&max_bytes=65536',
    ],
    [
      [
        'composition',
        'logs',
        'c-abc',
        '--component',
        'service-a',
        '--tail-lines',
        '1000',
        '--max-bytes',
        '262144',
        '--since',
        '1h30m',
        '--previous',
      ],
      '/v1/compositions/c-abc/components/service-a/logs?tail_lines=1000&max_bytes=262144&since_seconds=5400&previous=true',
    ],
    [['composition', 'diagnosis', 'c-abc'], '/v1/compositions/c-abc/diagnosis'],
    [['composition', 'verification', 'c-abc'], '/v1/compositions/c-abc/verification'],
    [
      ['composition', 'verification', 'c-abc', '--limit', '5', '--after', 'abc_-1'],
      '/v1/compositions/c-abc/verification?limit=5&after=abc_-1',
    ],
    [['composition', 'events', 'c-abc', '--limit', '7'], '/v1/compositions/c-abc/events?limit=7'],
  ])('%j → GET %s, and prints the answer', async (args, path) => {
    const answer = { source: 'override', streams: [], partial: false };
    const api = await recordingServer(() => ({ status: 200, body: answer }));
    try {
      const result = await svc(args, { apiUrl: api.url });
      expect(result.code, result.stderr).toBe(0);
      expect(result.json()).toEqual(answer);
      expect(api.requests.map((r) => `${r.method} ${r.url}`)).toEqual([`GET ${path}`]);
    } finally {
      await api.close();
    }
  });
});

describe('logs, diagnosis and verification of a rolled-out composition', () => {
  let id: string;
  beforeAll(async () => {
    id = (await created('--image', image('service-b'))).id;
    const rolledOut = await run(['composition', 'wait', id, '--timeout', '30s']);
    expect(rolledOut.code, rolledOut.stderr).toBe(0);
  });

  it("logs of the overridden component are the fork's pods only (source override)", async () => {
    const logs = v.parse(Insight.LogSnapshot, await ok(['composition', 'logs', id]));
    expect(logs).toMatchObject({
      component: 'service-b',
      source: 'override',
      composition_filtered: true,
      partial: false,
      truncated: false,
    });
    expect(logs.streams.length).toBeGreaterThan(0);
    for (const stream of logs.streams) {
      expect(stream.text).toContain(`starting service-b (image ${image('service-b')}`);
      expect(stream.text).not.toContain(image('service-b', '1.0.0'));
    }
    // The worker's verification request reached the fork with this composition's routing key.
    expect(logs.streams.map((s) => s.text).join('')).toContain(`routing_key=${id}`);
  });

  it('logs of an inherited component are the shared baseline, not filtered; --tail-lines cuts them', async () => {
    const logs = v.parse(
      Insight.LogSnapshot,
      await ok(['composition', 'logs', id, '--component', 'service-a', '--tail-lines', '1']),
    );
    expect(logs).toMatchObject({
      component: 'service-a',
      source: 'shared-baseline',
      composition_filtered: false,
    });
    expect(logs.streams.length).toBeGreaterThan(0);
    for (const stream of logs.streams) {
      expect(stream.text.trimEnd().split('\n')).toHaveLength(1);
      expect(stream.truncated).toBe(true);
    }
  });

  it('logs of a component the composition does not have are the 404 problem, exit 1', async () => {
    const result = await run(['composition', 'logs', id, '--component', 'service-z']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it("verification lists the worker's passed routing check, fresh, covering the override", async () => {
    const checks = v.parse(Checks.CheckList, await ok(['composition', 'verification', id, '--limit', '1']));
    expect(checks.items).toEqual([
      expect.objectContaining({
        composition_id: id,
        kind: 'routing',
        generation: 1,
        status: 'passed',
        freshness: 'fresh',
        stale_reasons: [],
        coverage: expect.objectContaining({ 'service-b': 'verified' }),
      }),
    ]);
  });

  it('diagnosis says healthy, with the check as evidence', async () => {
    const diagnosis = v.parse(Insight.DiagnosisView, await ok(['composition', 'diagnosis', id]));
    const [check] = (await ok(['composition', 'verification', id, '--limit', '1'])).items;
    expect(diagnosis).toMatchObject({
      composition_id: id,
      phase: 'ready',
      state: 'healthy',
      blockers: [],
      verification: { status: 'passed', freshness: 'fresh', check_id: check.id, generation: 1 },
      evidence_id: check.id,
    });
  });

  it('an unknown composition is the 404 problem for each of them, exit 1', async () => {
    for (const args of [
      ['composition', 'logs', 'c-doesnotexist'],
      ['composition', 'diagnosis', 'c-doesnotexist'],
      ['composition', 'verification', 'c-doesnotexist'],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
    }
  });
});
