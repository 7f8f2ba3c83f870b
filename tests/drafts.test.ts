/** Onboarding drafts over HTTP (spec 2.6, 4.1 rule 4), with two authors holding bearer tokens. */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let alice: HttpClient;
let bob: HttpClient;

useTestStack({ authMode: Auth.AuthMode.Token, worker: false }, async (started) => {
  stack = started.stack;
  const [a, b] = await Promise.all([started.token('alice@example.com'), started.token('bob@example.com')]);
  alice = httpClient(stack.apiUrl, { authorization: `Bearer ${a}` });
  bob = httpClient(stack.apiUrl, { authorization: `Bearer ${b}` });
});

const draftPath = (project: string) => `/v1/projects/${project}/onboarding-draft`;
const draft = (project: string, revision: number, extra: Record<string, unknown> = {}) => ({
  project,
  revision,
  stage: 'workloads',
  configuration: {
    repository: 'acme/shop',
    workloads: [{ name: 'web', kind: 'Deployment', container: 'app', port: 8080 }],
  },
  ...extra,
});

describe('onboarding drafts', () => {
  it('PUT at revision 0 creates the draft at revision 1; GET resumes it', async () => {
    const saved = await alice.put(draftPath('shop'), draft('shop', 0));
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body).toEqual({
      project: 'shop',
      author: 'token:alice@example.com',
      revision: 1,
      stage: 'workloads',
      configuration: draft('shop', 0).configuration,
      selections: {},
      created_at: expect.any(String),
      updated_at: saved.body.created_at,
      expires_at: expect.any(String),
    });
    expect((await alice.get(draftPath('shop'))).body).toEqual(saved.body);

    const next = await alice.put(
      draftPath('shop'),
      draft('shop', 1, { stage: 'review', selections: { workloads: ['web'] } }),
    );
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body).toMatchObject({ revision: 2, stage: 'review', selections: { workloads: ['web'] } });
    expect(next.body.created_at).toBe(saved.body.created_at);
  });

  it('keeps one draft per author: another author neither sees nor overwrites it', async () => {
    await alice.put(draftPath('authors'), draft('authors', 0));
    expect((await bob.get(draftPath('authors'))).status).toBe(404);
    const own = await bob.put(draftPath('authors'), draft('authors', 0, { stage: 'baseline' }));
    expect(own.body).toMatchObject({ author: 'token:bob@example.com', revision: 1, stage: 'baseline' });
    expect((await alice.get(draftPath('authors'))).body).toMatchObject({ revision: 1, stage: 'workloads' });
  });

  it('answers 409 stale_revision for a PUT or DELETE at any revision but the current one', async () => {
    expect((await alice.put(draftPath('stale'), draft('stale', 0))).body.revision).toBe(1);
    for (const revision of [0, 2, 7]) {
      const put = await alice.put(draftPath('stale'), draft('stale', revision));
      expect(put.status).toBe(409);
      expect(put.body).toMatchObject({ code: 'stale_revision', errors: [{ path: '/revision' }] });
      expect(put.body.detail).toContain('revision 1');
      const del = await alice.delete(`${draftPath('stale')}?revision=${revision}`);
      expect(del.status).toBe(409);
      expect(del.body.code).toBe('stale_revision');
    }
    // No draft at all: only revision 0 creates one.
    const none = await alice.put(draftPath('nothing-yet'), draft('nothing-yet', 3));
    expect(none.status).toBe(409);
    expect(none.body.detail).toContain('save with revision 0');
    expect((await alice.get(draftPath('stale'))).body.revision).toBe(1);
  });

  it('DELETE needs ?revision=N (400), answers 204 without a body, then the draft is gone (404)', async () => {
    await alice.put(draftPath('discard'), draft('discard', 0));
    for (const query of ['', '?revision=', '?revision=one', '?revision=-1']) {
      const answer = await alice.delete(`${draftPath('discard')}${query}`);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ code: 'invalid_query', errors: [{ path: 'revision' }] });
    }
    const deleted = await alice.delete(`${draftPath('discard')}?revision=1`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect((await alice.get(draftPath('discard'))).status).toBe(404);
    expect((await alice.delete(`${draftPath('discard')}?revision=1`)).status).toBe(404);
    expect((await alice.put(draftPath('discard'), draft('discard', 0))).body.revision).toBe(1);
  });

  it('refuses environment values, ConfigMap values, credentials and messaging configuration, naming each path; nothing is saved', async () => {
    await alice.put(draftPath('secrets'), draft('secrets', 0));
    const body = draft('secrets', 1, {
      configuration: {
        workloads: [{ name: 'web', env: [{ name: 'DATABASE_URL', value: 'postgres://db/app' }] }],
        configMapValues: { LOG_LEVEL: 'debug' },
        database: { password: 'hunter2', host: 'db.internal' },
        messaging: { topics: ['orders'] },
        deploy_key:
          '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
        notes: ['AKIAIOSFODNN7EXAMPLE'],
      },
      selections: { queue_urls: ['https://sqs.example.com/1/orders'], workloads: ['web'] },
    });
    const refused = await alice.put(draftPath('secrets'), body);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('draft_content_refused');
    expect(refused.body.errors.map((e: { path: string; code: string }) => [e.path, e.code])).toEqual([
      ['/configuration/workloads/0/env', 'environment_values'],
      ['/configuration/configMapValues', 'configmap_values'],
      ['/configuration/database/password', 'credentials'],
      ['/configuration/messaging', 'messaging_configuration'],
      ['/configuration/deploy_key', 'secret_value'],
      ['/configuration/notes/0', 'secret_value'],
      ['/selections/queue_urls', 'messaging_configuration'],
    ]);
    expect(JSON.stringify(refused.body)).not.toContain('hunter2');
    const stored = await alice.get(draftPath('secrets'));
    expect(stored.body).toMatchObject({ revision: 1, configuration: draft('secrets', 0).configuration });
  });

  it('refuses a body of the wrong shape or size with 422 validation_failed naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ ...draft('shape', 0), extra: true }, '/extra'],
      [{ ...draft('shape', 0), stage: 'Not A Stage' }, '/stage'],
      [{ ...draft('shape', 0), configuration: ['a'] }, '/configuration'],
      [{ ...draft('shape', 0), revision: -1 }, '/revision'],
      [draft('other', 0), '/project'],
      [{ ...draft('shape', 0), configuration: { blob: 'x'.repeat(70_000) } }, '/configuration'],
    ];
    for (const [body, path] of cases) {
      const answer = await alice.put(draftPath('shape'), body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
    const { revision: _, ...noRevision } = draft('shape', 0);
    expect((await alice.put(draftPath('shape'), noRevision)).body.errors[0]).toMatchObject({
      path: '/revision',
      message: 'revision is required',
    });
    expect((await alice.get(draftPath('shape'))).status).toBe(404);
  });

  it('registers nothing, approves nothing and creates no preview', async () => {
    const projects = (await alice.get('/v1/projects')).body;
    const components = (await alice.get('/v1/projects/demo/components')).body;
    const compositions = (await alice.get('/v1/compositions')).body;
    const onboarding = draft('brand-new', 0, {
      stage: 'review',
      configuration: {
        components: [{ name: 'web', workload: { name: 'web', container: 'app' }, port: 8080 }],
        baselines: [{ name: 'staging', namespace: 'staging', entry_component: 'web' }],
        approve: true,
      },
      selections: { preview: { create: true, overrides: { web: 'registry.example.com/shop/web:1' } } },
    });
    expect((await alice.put(draftPath('brand-new'), onboarding)).status).toBe(200);
    expect((await alice.put(draftPath('demo'), draft('demo', 0))).status).toBe(200);
    expect((await alice.get('/v1/projects')).body).toEqual(projects);
    expect((await alice.get('/v1/projects/brand-new/components')).status).toBe(404);
    expect((await alice.get('/v1/projects/demo/components')).body).toEqual(components);
    expect((await alice.get('/v1/compositions')).body).toEqual(compositions);
  });

  it('scans 64 KiB of pathological text in linear time: 8 such saves at once leave /version responsive', async () => {
    // 32,000 newlines: the environment-assignment pattern was quadratic on them (1.25 s for 64 KiB).
    const text = '\n'.repeat(32_000);
    const started = performance.now();
    const saves = Array.from({ length: 8 }, (_, i) =>
      alice.put(draftPath(`scan-${i}`), draft(`scan-${i}`, 0, { configuration: { notes: text } })),
    );
    const version = await alice.get('/version');
    const versionMs = performance.now() - started;
    const answers = await Promise.all(saves);
    expect(version.status).toBe(200);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(versionMs).toBeLessThan(2_000);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
