/**
 * A stage redeployed without one of its clusters while the catalog still names it: the second
 * deployment (a stack on the same table and queues, without `local-2`) takes over a create the
 * first accepted on `local-2`. Every route answers, naming the cluster, never a 500: the rollout
 * fails with blocker `unknown_cluster` (the diagnosis notes it), logs say why they cannot be read,
 * a plan there is blocked, and a destroy ends, recording what may be left (docs/decisions.md,
 * Several clusters).
 */
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, httpClient, startTestStack, testResourcePrefix } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

const override = { 'service-b': { image: image('service-b', '2.0.0') } };
const gone = `cluster "local-2" is not one of this installation's clusters ("local")`;

let redeployed: Stack | undefined;
let http: HttpClient;
let id: string;

beforeAll(async () => {
  const resourcePrefix = testResourcePrefix();
  // The first deployment knows both clusters and accepts the create; its worker never runs it.
  const first = await startTestStack({ clusters: 2, worker: false, resourcePrefix });
  try {
    id = (await createComposition(httpClient(first.apiUrl), override, { baseline: 'staging-2' })).id;
  } finally {
    await first.stop();
  }
  redeployed = await startTestStack({ resourcePrefix, seed: false });
  http = httpClient(redeployed.apiUrl);
});
afterAll(() => redeployed?.stop());

describe('a composition on a cluster the stage no longer has', () => {
  it('fails its rollout with blocker unknown_cluster, and still reads where it lives', async () => {
    const failed = await waitForPhase(http, id, ['failed', 'ready']);
    expect(failed).toMatchObject({
      phase: 'failed',
      destination: { cluster: 'local-2', namespace: 'staging' },
      observed: { blockers: [{ code: 'unknown_cluster', message: `${gone}: the rollout cannot reach it` }] },
    });
  });

  it('is diagnosed failed with the blocker and a note naming the cluster; its logs say why they cannot be read', async () => {
    const diagnosis = await http.get(`/v1/compositions/${id}/diagnosis`);
    expect(diagnosis.status).toBe(200);
    expect(diagnosis.body).toMatchObject({
      state: 'failed',
      cluster: 'local-2',
      blockers: [{ code: 'unknown_cluster' }],
      notes: [{ code: 'unknown_cluster', message: gone }],
    });
    const logs = await http.get(`/v1/compositions/${id}/components/service-b/logs`);
    expect(logs.status).toBe(200);
    expect(logs.body).toMatchObject({ message: `the logs cannot be read: ${gone}` });
  });

  it('blocks a plan on its baseline, and refuses an update, naming the cluster', async () => {
    const plan = await http.post('/v1/compositions/plan', {
      project: 'demo',
      baseline: 'staging-2',
      name: 'e2e',
      overrides: override,
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    expect(plan.body.blockers.map((b: { code: string }) => b.code)).toEqual(['unknown_cluster']);
    const update = await http.patch(`/v1/compositions/${id}`, {
      expected_generation: 1,
      overrides: override,
    });
    expect(update.status).toBe(422);
    expect(update.body.detail).toContain('local-2');
  });

  it('is destroyed, recording that what it made there may be left', async () => {
    expect((await http.delete(`/v1/compositions/${id}`)).status).toBe(202);
    await waitForPhase(http, id, ['destroyed']);
    const events = await http.get(`/v1/compositions/${id}/events`);
    const incomplete = events.body.items.filter((e: { type: string }) => e.type === 'cleanup_incomplete');
    expect(incomplete.map((e: { message: string }) => e.message)).toEqual([expect.stringContaining(gone)]);
    const health = await http.get('/healthz');
    expect(health.status).toBe(200);
    expect(Object.keys(health.body.dependencies)).not.toContain('cluster:local-2');
  });
});
