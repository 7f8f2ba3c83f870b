/**
 * Draining a cluster or the stage before it goes (`svc admin drain`, `POST /v1/admin/drain`): every
 * live composition there is destroyed the way a DELETE destroys it, page by page, and the deploy
 * check refuses a deploy that drops a cluster previews still run on. Two local clusters, token mode.
 */
import { Auth, Cluster, type Forge, Resources } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import { checkClusterRemoval } from '../infra/deploy-check.ts';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let adminToken: string;
let admin: HttpClient;
let developer: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Token, clusters: 2, alongside: ensureBuilt }, async (started) => {
  stack = started.stack;
  adminToken = await started.token('operator', Auth.Role.Admin);
  admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
  developer = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await started.token('dev', Auth.Role.Member)}`,
  });
});

const override = { 'service-b': { image: image('service-b', '2.0.0') } };
const drain = (args: string[]) =>
  svc(['admin', 'drain', ...args], { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: adminToken } });

async function created(baseline: string, name: string): Promise<string> {
  return (await createComposition(admin, override, { baseline, name })).id;
}

async function phaseOf(id: string): Promise<string> {
  return (await admin.get(`/v1/compositions/${id}`)).body.phase;
}

/** The fork Deployments a composition has on a cluster, read through the services' client of it. */
async function forksOn(cluster: string, id: string): Promise<string[]> {
  const found = stack.clusters.lookup(cluster);
  if (!found.known) throw new Error(found.reason);
  const forks = await found.cluster.listDeployments('staging', Cluster.compositionSelector(id));
  return forks.map((d) => d.metadata.name);
}

async function destroyRequests(id: string): Promise<{ data: { reason: string }; actor: unknown }[]> {
  const events = await admin.get(`/v1/compositions/${id}/events?limit=50`);
  return events.body.items.filter((e: { type: string }) => e.type === 'destroy_requested');
}

const checkRemoval = (clusters: string[], token = adminToken) =>
  checkClusterRemoval({ url: stack.apiUrl, token, clusters, log: () => {} });

describe('svc admin drain --cluster', () => {
  let onLocal: string[];
  let onSecond: string;

  it('lists with --dry-run what a drain of the cluster would destroy, newest first, and changes nothing', async () => {
    onLocal = [await created('staging', 'first'), await created('staging', 'second')];
    onSecond = await created('staging-2', 'elsewhere');
    for (const id of [...onLocal, onSecond]) await waitForPhase(admin, id, ['ready']);

    const dry = await drain(['--cluster', 'local', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toEqual({
      dry_run: true,
      cluster: 'local',
      compositions: [...onLocal].reverse().map((id, i) => ({
        id,
        project: 'demo',
        name: ['second', 'first'][i],
        cluster: 'local',
        phase: 'ready',
        action: 'destroy',
        detail: null,
      })),
    });
    for (const id of [...onLocal, onSecond]) expect(await phaseOf(id)).toBe('ready');
  });

  it('makes the deploy check refuse settings that drop a cluster previews run on, naming them', async () => {
    await expect(checkRemoval(['local'])).rejects.toThrow(
      `cluster "local-2" still has live compositions (${onSecond}): svc admin drain --cluster local-2`,
    );
    await expect(checkRemoval(['local-2'])).rejects.toThrow(/cluster "local" still has live compositions/);
    await expect(checkRemoval(['local', 'local-2'])).resolves.toBeUndefined();
    // A token the running stage does not accept cannot see which clusters it has.
    await expect(checkRemoval(['local'], 'svc_forged')).rejects.toThrow(/named no cluster/);
  });

  it('destroys each of them through the destroy path, waits until they are destroyed, and leaves the other cluster alone', async () => {
    const run = await drain(['--cluster', 'local']);
    expect(run.code, run.stderr).toBe(0);
    const report = run.json();
    expect(report.compositions.map((c: { id: string; action: string }) => [c.id, c.action])).toEqual(
      [...onLocal].reverse().map((id) => [id, 'destroy']),
    );
    expect(report.remaining).toEqual([]);
    for (const id of onLocal) {
      expect(await phaseOf(id)).toBe('destroyed');
      expect(await forksOn('local', id)).toEqual([]);
      expect(await destroyRequests(id)).toEqual([
        expect.objectContaining({
          data: expect.objectContaining({ reason: 'drained' }),
          actor: { kind: 'user', subject: 'token:operator' },
        }),
      ]);
    }
    expect(await phaseOf(onSecond)).toBe('ready');
    const audit = await admin.get('/v1/audit-events?limit=20');
    expect(audit.body.items).toContainEqual(
      expect.objectContaining({
        action: 'installation.drained',
        target: 'cluster:local',
        data: { compositions: [...onLocal].reverse() },
      }),
    );
  });

  it('finds nothing left the second time, and lets the deploy drop the drained cluster', async () => {
    const again = await drain(['--cluster', 'local']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json()).toEqual({ dry_run: false, cluster: 'local', compositions: [], remaining: [] });
    await expect(checkRemoval(['local-2'])).resolves.toBeUndefined();
  });
});

describe('POST /v1/admin/drain', () => {
  it('drains one bounded page per call, goes on from its cursor, and starts nothing twice', async () => {
    const ids = [
      await created('staging', 'p1'),
      await created('staging', 'p2'),
      await created('staging', 'p3'),
    ];
    const first = await admin.post('/v1/admin/drain?limit=2', { cluster: 'local' });
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: { id: string; action: string }) => [c.id, c.action])).toEqual([
      [ids[2], 'destroy'],
      [ids[1], 'destroy'],
    ]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await admin.post(`/v1/admin/drain?limit=2&after=${first.body.next_cursor}`, {
      cluster: 'local',
    });
    expect(rest.body.items.map((c: { id: string; action: string }) => [c.id, c.action])).toEqual([
      [ids[0], 'destroy'],
    ]);
    expect(rest.body.next_cursor).toBeNull();

    const repeated = await admin.post('/v1/admin/drain', { cluster: 'local' });
    expect(repeated.body.items.map((c: { action: string }) => c.action)).not.toContain('destroy');
    for (const id of ids) {
      await waitForPhase(admin, id, ['destroyed']);
      expect(await destroyRequests(id)).toHaveLength(1);
    }
  });

  it('refuses a cluster the stage does not know, bad paging, and anyone but an Admin, changing nothing', async () => {
    const unknown = await admin.post('/v1/admin/drain', { cluster: 'elsewhere' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({
      code: 'unknown_reference',
      detail: 'cluster "elsewhere" is not one of this installation\'s clusters ("local", "local-2")',
      errors: [{ path: '/cluster', message: 'unknown cluster' }],
    });
    const badBody = await admin.post('/v1/admin/drain', { cluster: 7, dryrun: true });
    expect(badBody.status).toBe(422);
    expect(badBody.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/cluster', '/dryrun']);
    expect((await admin.post('/v1/admin/drain?limit=101', {})).body).toMatchObject({
      status: 400,
      code: 'invalid_query',
    });
    expect((await admin.post('/v1/admin/drain?after=not-a-cursor', {})).body.code).toBe('invalid_query');
    const refused = await developer.post('/v1/admin/drain', { dry_run: true });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    const cli = await svc(['admin', 'drain', '--dry-run'], {
      apiUrl: stack.apiUrl,
      env: { SVC_API_TOKEN: 'svc_forged' },
    });
    expect(cli.code).toBe(5);
    const long = await drain(['--cluster', 'c'.repeat(101)]);
    expect(long.code).toBe(2);
    expect(long.problem()).toMatchObject({ code: 'invalid_argument', errors: [{ path: '--cluster' }] });
  });
});

describe('a pull-request preview on a drained cluster', () => {
  const repository = 'demo-org/service-b';
  const previewOf = async (number: number): Promise<Forge.PreviewView | undefined> =>
    (await admin.get('/v1/forge/previews?project=demo&limit=200')).body.items.find(
      (p: Forge.PreviewView) => p.pull_request.number === number,
    );
  async function until(number: number, done: (preview: Forge.PreviewView) => boolean) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const preview = await previewOf(number);
      if (preview && done(preview)) return preview;
      if (Date.now() > deadline) throw new Error(`preview #${number} is ${preview?.state}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('is stopped as a DELETE stops it: destroyed, and not brought back on that cluster by the next push', async () => {
    const forge = stack.forge as LocalForge;
    const { pullRequest } = await forge.open({ repository, head: 'feature-drained', labels: ['preview'] });
    if (!pullRequest) throw new Error('the forge opened no pull request');
    const ready = await until(pullRequest.number, (p) => p.state === 'ready');
    const id = ready.composition_id as string;

    const run = await drain(['--cluster', 'local']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json().compositions.map((c: { id: string }) => c.id)).toEqual([id]);
    expect(await phaseOf(id)).toBe('destroyed');
    await until(pullRequest.number, (p) => p.state === 'stopped');

    await forge.push({ repository, number: pullRequest.number });
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    expect((await previewOf(pullRequest.number))?.state).toBe('stopped');
    const live = (await admin.get('/v1/compositions?project=demo')).body.items;
    expect(
      live.filter((c: { destination: { cluster: string } }) => c.destination.cluster === 'local'),
    ).toEqual([]);
  });
});

describe('svc admin drain (the whole stage)', () => {
  it('with --no-wait starts every destroy and returns what it started, not yet destroyed', async () => {
    const left = (await admin.get('/v1/compositions')).body.items.map((c: { id: string }) => c.id);
    expect(left.length).toBeGreaterThan(0);
    const run = await drain(['--no-wait']);
    expect(run.code, run.stderr).toBe(0);
    const report = run.json();
    expect(report.cluster).toBeNull();
    expect(report.compositions.map((c: { id: string }) => c.id)).toEqual(left);
    expect(report.remaining).toEqual(left);
    for (const id of left) await waitForPhase(admin, id, ['destroyed']);
    expect((await admin.get('/v1/compositions')).body.items).toEqual([]);
  });
});
