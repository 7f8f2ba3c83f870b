/**
 * Two local clusters behind one stack, as `npm start -- --clusters 2` runs them: each demo baseline
 * on its own cluster, previews on both, each at its own cluster's gateway. Then one cluster stops
 * (its servers close): only its previews are held up, with a named blocker and an `unknown`
 * diagnosis, while the other cluster's previews still create and serve; it comes back, and what
 * waited for it converges.
 */

import { Checks, Cluster } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest, image } from '@svc/local/demo';
import type { HttpClient } from '@svc/local/testing';
import { useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { createComposition, waitForPhase, waitUntil } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;
useTestStack({ clusters: 2, alongside: ensureBuilt }, (started) => {
  ({ stack, http } = started);
});

const override = { 'service-b': { image: image('service-b', '2.0.0') } };

/** A preview URL fetched at the gateway its own port names: the one of its composition's cluster. */
async function served(url: string): Promise<{ status: number; serviceB: string | undefined }> {
  const response = await gatewayFetch(`http://127.0.0.1:${new URL(url).port}`, url);
  const hops = Checks.hopsOf(await response.json().catch(() => null)) ?? [];
  return { status: response.status, serviceB: hops.find((h) => h.component === 'service-b')?.image };
}

const gatewayPort = (name: string) => new URL(stack.localClusterOf(name).cluster.gatewayUrl).port;

/** The names of a composition's fork Deployments on a cluster, asked through the services' client of it. */
async function forksOn(name: string, id: string): Promise<string[]> {
  const found = stack.clusters.lookup(name);
  if (!found.known) throw new Error(found.reason);
  const forks = await found.cluster.listDeployments('staging', Cluster.compositionSelector(id));
  return forks.map((d) => d.metadata.name);
}

async function diagnosis(id: string) {
  const { status, body } = await http.get(`/v1/compositions/${id}/diagnosis`);
  expect(status).toBe(200);
  return body;
}

describe('two clusters behind one stack', () => {
  it('plans and serves each baseline’s previews on its own cluster, at its own gateway', async () => {
    const plan = await http.post('/v1/compositions/plan', {
      project: 'demo',
      baseline: 'staging-2',
      name: 'plan',
      overrides: override,
    });
    expect(plan.body.destination).toEqual({
      cluster: 'local-2',
      namespace: 'staging',
      url: `http://{id}.preview.localhost:${gatewayPort('local-2')}/`,
    });
    const onLocal = await createComposition(http, override);
    const onSecond = await createComposition(http, override, { baseline: 'staging-2' });
    expect(new URL(onLocal.endpoints.public.url).port).toBe(gatewayPort('local'));
    expect(new URL(onSecond.endpoints.public.url).port).toBe(gatewayPort('local-2'));
    expect([onLocal.destination, onSecond.destination]).toEqual([
      { cluster: 'local', namespace: 'staging' },
      { cluster: 'local-2', namespace: 'staging' },
    ]);
    for (const created of [onLocal, onSecond]) {
      const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
      expect(ready.phase).toBe('ready');
      expect(await served(ready.endpoints.public.url)).toEqual({
        status: 200,
        serviceB: image('service-b', '2.0.0'),
      });
      expect((await diagnosis(created.id)).state).toBe('healthy');
    }
    expect((await diagnosis(onSecond.id)).cluster).toBe('local-2');
    // Each composition's fork runs on its own cluster, and only there.
    expect(await forksOn('local', onLocal.id)).toEqual([`service-b-${onLocal.id}`]);
    expect(await forksOn('local-2', onLocal.id)).toEqual([]);
    expect(await forksOn('local-2', onSecond.id)).toEqual([`service-b-${onSecond.id}`]);
    expect(await forksOn('local', onSecond.id)).toEqual([]);
  });

  it('refuses a baseline on a cluster the installation does not know, naming the field and writing nothing', async () => {
    const before = await http.get('/v1/projects/demo/baselines');
    const manifest = demoManifest(stack.apiUrl, ['local-2']);
    const staging = manifest.projects[0]?.baselines[0];
    if (!staging) throw new Error('the demo manifest has no baseline');
    staging.cluster = 'elsewhere';
    const { status, body } = await http.post('/v1/catalog/apply', manifest);
    expect(status).toBe(422);
    expect(body.errors).toEqual([
      {
        path: '/projects/0/baselines/0/cluster',
        code: 'unknown_cluster',
        message:
          'cluster "elsewhere" is not one of this installation\'s clusters ("local", "local-2"): name one of them, or add it to the stage\'s clusters and deploy first',
      },
    ]);
    expect((await http.get('/v1/projects/demo/baselines')).body).toEqual(before.body);
  });

  it('reports every cluster in /healthz and the installation check', async () => {
    const health = await http.get('/healthz');
    expect(health.status).toBe(200);
    expect(Object.keys(health.body.dependencies).sort()).toEqual([
      'cluster:local',
      'cluster:local-2',
      'dynamodb',
      'sqs',
    ]);
    const check = await http.post('/v1/installation/check', {});
    const statusOf = (id: string) => check.body.checks.find((c: { id: string }) => c.id === id)?.status;
    expect([statusOf('cluster:local'), statusOf('cluster:local-2')]).toEqual(['passed', 'passed']);
    expect(statusOf('workload:demo/staging-2/service-b')).toBe('passed');
  });
});

describe('one cluster down', () => {
  let onSecond: { id: string; endpoints: { public: { url: string } } };
  let waiting: { id: string };

  it('holds up only that cluster’s previews: a named blocker and an unknown diagnosis there, the others create and serve', async () => {
    onSecond = await createComposition(http, override, { baseline: 'staging-2' });
    await waitForPhase(http, onSecond.id, ['ready']);
    const second = stack.localClusterOf('local-2').cluster;
    await second.stop();
    await expect(fetch(`${second.url}/version`)).rejects.toThrow();

    const health = await http.get('/healthz');
    expect(health.status).toBe(503);
    expect(health.body.dependencies['cluster:local']).toMatchObject({ status: 'ok' });
    expect(health.body.dependencies['cluster:local-2']).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/connection failed/),
    });

    waiting = await createComposition(http, override, { baseline: 'staging-2' });
    const onLocal = await createComposition(http, override);
    const ready = await waitForPhase(http, onLocal.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    expect((await served(ready.endpoints.public.url)).serviceB).toBe(image('service-b', '2.0.0'));

    let blocked = await diagnosis(waiting.id);
    await waitUntil(
      async () => {
        blocked = await diagnosis(waiting.id);
        return blocked.blockers.length > 0;
      },
      10_000,
      'the waiting rollout to record its blocker',
    );
    expect(blocked).toMatchObject({ cluster: 'local-2', phase: 'provisioning', state: 'unknown' });
    expect(blocked.blockers).toEqual([
      {
        code: 'cluster_unavailable',
        message: expect.stringMatching(
          /^cluster "local-2" is unavailable since \S+ \(connection failed \(ECONNREFUSED\)\); the create waits for it$/,
        ),
        component: null,
      },
    ]);
    expect(blocked.notes).toContainEqual({
      code: 'cluster_unreadable',
      message: expect.stringMatching(
        /^cluster "local-2" could not be read \(.*ECONNREFUSED.*\); what it holds is unknown$/,
      ),
    });
    const readyOnSecond = await diagnosis(onSecond.id);
    expect(readyOnSecond).toMatchObject({ phase: 'ready', state: 'unknown', cluster: 'local-2' });
    expect(readyOnSecond.notes.map((n: { code: string }) => n.code)).toEqual(['cluster_unreadable']);
    expect((await diagnosis(onLocal.id)).state).toBe('healthy');

    const check = await http.post('/v1/installation/check', {});
    const byId = (id: string) => check.body.checks.find((c: { id: string }) => c.id === id);
    expect(byId('cluster:local').status).toBe('passed');
    expect(byId('cluster:local-2')).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^cluster "local-2": the Kubernetes API server cannot be reached/),
    });
    expect(byId('namespace:demo/staging-2').message).toBe('not established: cluster:local-2 did not pass');
    expect(byId('namespace:demo/staging').status).toBe('passed');
    // The CLI's verdict: failed, naming the one cluster's check (its dependents are only unknown).
    const cli = await svc(['installation', 'check', '--file', '-'], { apiUrl: stack.apiUrl, stdin: '{}' });
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.problem()).toMatchObject({
      code: 'installation_failed',
      errors: [{ path: 'cluster:local-2' }],
    });
  });

  it('converges once the cluster is back: the waiting rollout goes on, the diagnosis is known again', async () => {
    await stack.restartCluster('local-2');
    const ready = await waitForPhase(http, waiting.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    expect(await served(ready.endpoints.public.url)).toEqual({
      status: 200,
      serviceB: image('service-b', '2.0.0'),
    });
    const recovered = await diagnosis(waiting.id);
    expect(recovered).toMatchObject({ state: 'healthy', blockers: [] });
    await waitUntil(async () => (await diagnosis(onSecond.id)).state === 'healthy', 10_000, 'the ready one');
    const events = await http.get(`/v1/compositions/${waiting.id}/events?limit=50`);
    const waits = events.body.items.filter(
      (e: { type: string; message: string }) =>
        e.type === 'rollout_progress' && e.message.includes('local-2'),
    );
    expect(waits).toHaveLength(1);
    expect((await http.get('/healthz')).status).toBe(200);
  });
});
