/** `svc catalog draft`, `svc source resolve` and `svc frontend` through the real executable. */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { useTestStack } from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, type Json, recordingServer, svc } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

const run = (args: string[]) => svc(args, { apiUrl: stack.apiUrl });
const file = (body: unknown) => {
  const path = join(tmpdir(), `draft-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
};
const draft = (revision: number, configuration: Json = { repository: 'acme/shop', port: 8080 }) => ({
  project: 'shop',
  revision,
  stage: 'workloads',
  configuration,
});

/** Runs a command against a stand-in API and asserts it was refused locally: exit 2, nothing sent. */
async function refusedLocally(args: string[], path: string) {
  const api = await recordingServer();
  try {
    const result = await svc(args, { apiUrl: api.url });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.problem().errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(api.requests).toEqual([]);
    return result.problem();
  } finally {
    await api.close();
  }
}

describe('svc catalog draft', () => {
  it('save creates at revision 0, get resumes, a stale revision exits 4, delete discards', async () => {
    const saved = await run(['catalog', 'draft', 'save', '--file', file(draft(0))]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.json()).toMatchObject({ project: 'shop', author: 'admin', revision: 1, selections: {} });
    const got = await run(['catalog', 'draft', 'get', 'shop']);
    expect(got.json()).toEqual(saved.json());

    const stale = await run(['catalog', 'draft', 'save', '--file', file(draft(0))]);
    expect(stale.code).toBe(4);
    expect(stale.problem()).toMatchObject({ status: 409, code: 'stale_revision' });
    const next = await run(['catalog', 'draft', 'save', '--file', file({ ...draft(1), stage: 'review' })]);
    expect(next.json()).toMatchObject({ revision: 2, stage: 'review' });

    const staleDelete = await run(['catalog', 'draft', 'delete', 'shop', '--revision', '1']);
    expect(staleDelete.code).toBe(4);
    expect(staleDelete.problem().code).toBe('stale_revision');
    const deleted = await run(['catalog', 'draft', 'delete', 'shop', '--revision', '2']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual({ project: 'shop', revision: 2, deleted: true });
    const gone = await run(['catalog', 'draft', 'get', 'shop']);
    expect(gone.code).toBe(1);
    expect(gone.problem()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('save refuses secrets, environment and messaging content before sending anything', async () => {
    const problem = await refusedLocally(
      [
        'catalog',
        'draft',
        'save',
        '--file',
        file(draft(0, { database: { password: 'hunter2' }, env: { A: 'b' }, topics: ['orders'] })),
      ],
      '--file/configuration/database/password',
    );
    expect(problem.code).toBe('invalid_argument');
    expect(problem.errors.map((e: { code: string }) => e.code)).toEqual([
      'credentials',
      'environment_values',
      'messaging_configuration',
    ]);
    expect(problem.detail).toContain('nothing was sent');
    expect(JSON.stringify(problem)).not.toContain('hunter2');
  });

  it.each([
    [['catalog', 'draft', 'save', '--file', file({ ...draft(0), revision: 'one' })], '--file/revision'],
    [['catalog', 'draft', 'get', 'Shop'], '<project>'],
    [['catalog', 'draft', 'delete', 'shop'], '--revision'],
    [['catalog', 'draft', 'delete', 'shop', '--revision', 'two'], '--revision'],
  ])('refuses %j locally', async (args, path) => {
    await refusedLocally(args, path);
  });
});

describe('svc source resolve', () => {
  beforeAll(async () => {
    const response = await fetch(`${stack.apiUrl}/v1/projects/demo/builds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        component: 'service-b',
        repository: 'acme/shop',
        commit_sha: '1'.repeat(40),
        ref: 'refs/heads/main',
        image: `registry.example.com/demo/service-b@sha256:${'1'.repeat(64)}`,
      }),
    });
    expect(response.status).toBe(201);
  });
  const resolve = (ref: string) =>
    run([
      'source',
      'resolve',
      '--project',
      'demo',
      '--repository',
      'acme/shop',
      '--component',
      'service-b',
      '--ref',
      ref,
    ]);

  it('prints the commit and the published build of a ref', async () => {
    const result = await resolve('main');
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({
      ref: 'main',
      matched_ref: 'refs/heads/main',
      commit_sha: '1'.repeat(40),
      build: { component: 'service-b', image: expect.stringContaining('@sha256:') },
    });
  });

  it('an unpublished ref exits 1 with the 404 saying CI must publish it first', async () => {
    const result = await resolve('feature-x');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
    expect(result.problem().detail).toContain('CI must publish that revision first');
  });

  it('checks --repository and --ref before sending', async () => {
    const args = ['source', 'resolve', '--project', 'demo', '--component', 'service-b'];
    await refusedLocally([...args, '--repository', 'shop', '--ref', 'main'], '--repository');
    await refusedLocally([...args, '--repository', 'acme/shop', '--ref', 'a b'], '--ref');
  });
});

describe('svc frontend', () => {
  const revision = '9'.repeat(40);
  const on = (command: string, ...flags: string[]) => [
    'frontend',
    command,
    '--project',
    'demo',
    '--frontend',
    'web',
    '--revision',
    revision,
    ...flags,
  ];

  it('bind, resolve until ready, publish with a version guard, and check into verification', async () => {
    const created = await run(['composition', 'create', '--name', 'fe', '--image', image('service-b')]);
    const id = created.json().id;
    const bound = await run(on('bind', '--composition', id));
    expect(bound.code, bound.stderr).toBe(0);
    expect(bound.json()).toMatchObject({ composition_id: id, version: 1, published: null });

    const resolved = await run(on('resolve', '--timeout', '20s'));
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(resolved.json()).toMatchObject({ outcome: 'ready', composition: { id, ready: true } });

    const url = 'https://web-9999.pages.example.com/';
    const published = await run(on('publish', '--expected-version', '1', '--url', url));
    expect(published.json()).toMatchObject({ version: 2, published: { url } });
    const stale = await run(on('publish', '--expected-version', '1', '--url', url));
    expect(stale.code).toBe(4);
    expect(stale.problem()).toMatchObject({ status: 409, code: 'version_mismatch' });

    const checked = await run(
      on(
        'check',
        '--expected-version',
        '2',
        '--composition-generation',
        '1',
        '--status',
        'passed',
        '--message',
        'checkout flow works',
      ),
    );
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.json()).toMatchObject({
      kind: 'frontend',
      status: 'passed',
      generation: 1,
      target: url,
      freshness: 'fresh',
    });
    const verification = await run(['composition', 'verification', id]);
    expect(verification.json().items[0]).toEqual(checked.json());
  });

  it('resolve maps outcomes to exit codes, stdout holding the answer', async () => {
    let outcome = 'failed';
    const api = await recordingServer(() => ({
      status: 200,
      body: {
        binding: { version: 1 },
        composition: { id: 'c-x', phase: outcome === 'ended' ? 'destroying' : outcome },
        outcome,
        message: `composition c-x is ${outcome}`,
      },
    }));
    try {
      const failed = await svc(on('resolve'), { apiUrl: api.url });
      expect(failed.code).toBe(1);
      expect(failed.json().outcome).toBe('failed');
      expect(failed.problem().code).toBe('composition_failed');
      outcome = 'ended';
      const ended = await svc(on('resolve'), { apiUrl: api.url });
      expect(ended.code).toBe(1);
      expect(ended.problem().code).toBe('composition_ended');
      outcome = 'pending';
      const started = Date.now();
      const pending = await svc(on('resolve', '--timeout', '2s'), { apiUrl: api.url });
      expect(pending.code).toBe(3);
      expect(pending.problem().code).toBe('wait_timeout');
      expect(pending.json().outcome).toBe('pending');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      const waits = api.requests.map((r) => new URL(r.url, api.url).searchParams.get('wait_seconds'));
      // The default 30s timeout asks the server to wait at most 20s per request; a 2s one, 2s.
      expect(waits.slice(0, 3)).toEqual(['20', '20', '2']);
    } finally {
      await api.close();
    }
  });

  it.each([
    [on('bind', '--composition', 'C_X'), '--composition'],
    [
      [
        'frontend',
        'bind',
        '--project',
        'demo',
        '--frontend',
        'web',
        '--revision',
        'abc',
        '--composition',
        'c-x',
      ],
      '--revision',
    ],
    [on('resolve', '--timeout', '61s'), '--timeout'],
    [on('publish', '--expected-version', '0', '--url', 'https://x.example.com/'), '--expected-version'],
    [on('publish', '--expected-version', '1', '--url', 'ftp://x.example.com/'), '--url'],
    [
      on(
        'check',
        '--expected-version',
        '1',
        '--composition-generation',
        '1',
        '--status',
        'maybe',
        '--message',
        'm',
      ),
      '--status',
    ],
    [
      on(
        'check',
        '--expected-version',
        '1',
        '--composition-generation',
        '0',
        '--status',
        'passed',
        '--message',
        'm',
      ),
      '--composition-generation',
    ],
  ])('refuses %j locally', async (args, path) => {
    await refusedLocally(args, path);
  });
});
