/**
 * Every composition command through the real executable against the whole API in process
 * (DynamoDB Local + fauxqs). stdout must be JSON that the server's own schemas accept.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CompositionEndpointsView,
  CompositionList,
  CompositionStatusView,
  CompositionView,
  EventList,
  PlanView,
} from '@svc/core';
import type { Stack } from '@svc/local';
import { startTestStack } from '@svc/local/testing';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, image, recordingServer, svc } from './helpers.ts';

let stack: Stack;
beforeAll(async () => {
  [stack] = await Promise.all([startTestStack(), ensureBuilt()]);
});
afterAll(() => stack.stop());

const run = (args: string[], env: Record<string, string> = {}) => svc(args, { apiUrl: stack.apiUrl, env });

async function ok(args: string[]) {
  const result = await run(args);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('');
  return result.json();
}

async function created(...flags: string[]) {
  return ok(['composition', 'create', '--name', 'feature-x', ...flags]);
}

describe('svc composition create', () => {
  it('uses the defaults: project demo, the baseline from the catalog, --image on service-b', async () => {
    const composition = await created('--image', image('service-b'));
    expect(v.parse(CompositionView, composition)).toBeTruthy();
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
    const result = await run([
      'composition',
      'create',
      '--name',
      'x',
      '--inherit-all',
      '--message-isolation',
    ]);
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ status: 422 });
    expect(result.problem().detail).toMatch(/messaging/);
  });

  it('an unknown project without --baseline fails before the create, naming --project', async () => {
    const result = await run(['composition', 'create', '--name', 'x', '--project', 'nope', '--inherit-all']);
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ code: 'unknown_reference', errors: [{ path: '--project' }] });
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
    expect(v.parse(PlanView, plan)).toBeTruthy();
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
  });

  it('get and inspect print the full composition', async () => {
    const got = await ok(['composition', 'get', id]);
    expect(v.parse(CompositionView, got).id).toBe(id);
    expect(await ok(['composition', 'inspect', id])).toEqual(got);
  });

  it('endpoints prints the preview URL and readiness', async () => {
    const endpoints = await ok(['composition', 'endpoints', id]);
    expect(v.parse(CompositionEndpointsView, endpoints).endpoints.public).toMatchObject({ ready: false });
    expect(endpoints.endpoints.public.url).toContain(id);
  });

  it('list prints { items, next_cursor }, filtered by --project, paged by --limit and --after', async () => {
    const all = await ok(['composition', 'list', '--project', 'demo']);
    expect(v.parse(CompositionList, all).items.length).toBeGreaterThan(1);
    const first = await ok(['composition', 'list', '--limit', '1']);
    expect(first.items).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ok(['composition', 'list', '--limit', '1', '--after', first.next_cursor]);
    expect(second.items[0].id).not.toBe(first.items[0].id);
  });

  it('events prints the audit events, --limit bounds them', async () => {
    const events = await ok(['composition', 'events', id, '--limit', '1']);
    expect(v.parse(EventList, events).items).toEqual([expect.objectContaining({ type: 'accepted' })]);
  });

  it('an unknown id is the server 404 problem on stderr, exit 1', async () => {
    const result = await run(['composition', 'get', 'c-doesnotexist']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('update of a composition still being created is a conflict: exit 4', async () => {
    const result = await run([
      'composition',
      'update',
      id,
      '--expected-generation',
      '1',
      '--override',
      `service-b=${image('service-b', '3.0.0')}`,
    ]);
    expect(result.code).toBe(4);
    expect(result.problem()).toMatchObject({ status: 409, code: 'operation_in_progress' });
  });

  it('update sends the full desired set and a stale generation is exit 4', async () => {
    await makeReady(id);
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
    const accepted = await ok([
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
    expect(accepted).toMatchObject({ generation: 2, phase: 'updating' });
    expect(Object.keys(accepted.overrides).sort()).toEqual(['service-a', 'service-b']);
  });

  it('destroy answers the composition in phase destroying, and again when repeated', async () => {
    const destroyed = await ok(['composition', 'destroy', id]);
    expect(destroyed).toMatchObject({ id, phase: 'destroying' });
    expect(await ok(['composition', 'destroy', id])).toMatchObject({ id });
    const status = await run(['composition', 'wait', id, '--timeout', '1s']);
    expect(status.code).toBe(1);
    expect(v.parse(CompositionStatusView, status.json()).phase).toBe('destroying');
    expect(status.problem()).toMatchObject({ code: 'composition_ended' });
  });
});

describe('routes the server does not have yet call their documented paths', () => {
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

  it('against today’s server they end with its 404 problem, exit 1', async () => {
    const id = (await created('--inherit-all')).id;
    for (const args of [
      ['composition', 'logs', id],
      ['composition', 'diagnosis', id],
      ['composition', 'verification', id],
    ]) {
      const result = await run(args);
      expect(result.code).toBe(1);
      expect(result.problem()).toMatchObject({ status: 404 });
    }
  });
});

/** Plays the orchestrator, which does not exist yet: the composition reads as rolled out. */
async function makeReady(id: string): Promise<void> {
  const record = await stack.stores.compositions.get(id);
  if (!record) throw new Error(`no composition ${id}`);
  const done = await stack.stores.compositions.replace({
    composition: {
      ...record,
      phase: 'ready',
      observed_generation: record.generation,
      active_operation: null,
      latest_operation: { ...record.latest_operation, status: 'succeeded' },
      lock_version: record.lock_version + 1,
    },
    expected_lock_version: record.lock_version,
    events: [],
  });
  if (!done) throw new Error(`composition ${id} changed meanwhile`);
}
