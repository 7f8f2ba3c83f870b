import { Cluster } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifestAs, deployBaselineOf, image } from '@svc/local/demo';
import { type HttpClient, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, imageOf, previewHops, waitForPhase, waitUntil } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;
const clock = testClock();
useTestStack({ clock }, (started) => {
  ({ stack, http } = started);
});

const remaining = (id: string) =>
  stack.cluster.list('staging', Cluster.CompositionKinds, Cluster.compositionSelector(id));

describe('create', () => {
  it('becomes ready and routes its keyed requests to a fork two hops deep, leaving other previews on the baseline', async () => {
    const forked = await createComposition(http, { 'service-c': { image: image('service-c', '2.0.0') } });
    const plain = await createComposition(http, {});
    const ready = await waitForPhase(http, forked.id, ['ready', 'failed']);
    expect(ready).toMatchObject({
      phase: 'ready',
      generation: 1,
      observed_generation: 1,
      endpoints: { public: { url: forked.endpoints.public.url, ready: true } },
      latest_operation: { kind: 'create', status: 'succeeded' },
      observed: {
        components: { 'service-c': { image: image('service-c', '2.0.0'), ready: true, generation: 1 } },
        blockers: [],
      },
    });
    await waitForPhase(http, plain.id, ['ready']);

    const keyed = await previewHops(stack, ready.endpoints.public.url);
    expect(keyed.status).toBe(200);
    expect(keyed.hops.map((h) => h.component)).toEqual(['service-a', 'service-b', 'service-c', 'service-d']);
    expect(imageOf(keyed.hops, 'service-c')).toBe(image('service-c', '2.0.0'));
    expect(imageOf(keyed.hops, 'service-b')).toBe(image('service-b', '1.0.0'));
    expect(keyed.hops.every((h) => h.routing_key === forked.id)).toBe(true);

    const other = await previewHops(stack, plain.endpoints.public.url);
    expect(imageOf(other.hops, 'service-c')).toBe(image('service-c', '1.0.0'));
  });

  it('sends the public URL to the fork when the entry component itself is overridden', async () => {
    const created = await createComposition(http, { 'service-a': { image: image('service-a', '2.0.0') } });
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    expect(ready.endpoints.public.ready).toBe(true);
    const { hops } = await previewHops(stack, ready.endpoints.public.url);
    expect(imageOf(hops, 'service-a')).toBe(image('service-a', '2.0.0'));
    const checks = await http.get(`/v1/compositions/${created.id}/verification`);
    expect(checks.body.items[0]).toMatchObject({ status: 'passed', coverage: { 'service-a': 'verified' } });
  });

  it('records durable events from accepted to ready', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.1.0') } });
    await waitForPhase(http, created.id, ['ready']);
    const { body } = await http.get(`/v1/compositions/${created.id}/events?limit=100`);
    const types = body.items.map((e: { type: string }) => e.type).reverse();
    expect(types[0]).toBe('accepted');
    expect(types.at(-1)).toBe('ready');
    const steps = body.items
      .filter((e: { type: string }) => e.type === 'step_finished')
      .map((e: { data: { step: string } }) => e.data.step)
      .reverse();
    expect(steps).toEqual(['apply', 'await-rollout', 'verify', 'finish']);
    for (const event of body.items) {
      expect(event.operation_id).toBe(created.latest_operation.id);
      expect(event.generation).toBe(1);
    }
  });

  it.each([
    ['missing', 'image_pull_failed'],
    ['crash', 'crash_loop'],
  ])('fails an image that is %s with blocker %s naming the image', async (kind, code) => {
    const bad = image('service-d', `9.9.9-${kind}`);
    const created = await createComposition(http, { 'service-d': { image: bad } });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed.phase).toBe('failed');
    expect(failed.observed_generation).toBe(0);
    expect(failed.endpoints.public.ready).toBe(false);
    expect(failed.observed.blockers).toEqual([
      { code, message: expect.stringContaining(bad), component: 'service-d' },
    ]);
    const diagnosis = await http.get(`/v1/compositions/${created.id}/diagnosis`);
    expect(diagnosis.body).toMatchObject({ state: 'failed', blockers: failed.observed.blockers });
  });

  it('fails with baseline_workload_missing when the baseline does not run the component', async () => {
    // ghost runs the demo baseline in a namespace of its own, and names a workload it does not run.
    const manifest = demoManifestAs('ghost');
    await deployBaselineOf(stack.cluster, manifest, 'ghost');
    const project = manifest.projects[0];
    if (!project) throw new Error('no project');
    const component = project.components.find((c) => c.name === 'service-d');
    if (!component) throw new Error('no service-d');
    component.workload.name = 'service-nowhere';
    expect((await http.post('/v1/catalog/apply', manifest)).status).toBe(200);
    const { body: created } = await http.post('/v1/compositions', {
      project: 'ghost',
      baseline: 'staging',
      name: 'ghost',
      overrides: { 'service-d': { image: image('service-d', '2.0.0') } },
    });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed.observed.blockers).toEqual([
      {
        code: 'baseline_workload_missing',
        message: expect.stringContaining('ghost/service-nowhere'),
        component: 'service-d',
      },
    ]);
  });
});

describe('update', () => {
  it('rolls a ready composition to generation 2 with the URL and expiry unchanged', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(http, created.id, ['ready']);
    const { status, body } = await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '3.0.0') } },
    });
    expect(status).toBe(202);
    expect(body).toMatchObject({ generation: 2, phase: 'updating', expires_at: created.expires_at });
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(ready).toMatchObject({
      phase: 'ready',
      generation: 2,
      observed_generation: 2,
      expires_at: created.expires_at,
    });
    expect(ready.endpoints.public.url).toBe(created.endpoints.public.url);
    const { hops } = await previewHops(stack, ready.endpoints.public.url);
    expect(imageOf(hops, 'service-b')).toBe(image('service-b', '3.0.0'));
  });

  it('refuses a second update during a rollout, and a delete stops the rollout and destroys everything', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(http, created.id, ['ready']);
    const slow = await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '4.0.0-slow') } },
    });
    expect(slow.status).toBe(202);
    const second = await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 2,
      overrides: {},
    });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('operation_in_progress');

    const deleted = await http.delete(`/v1/compositions/${created.id}`);
    expect(deleted.status).toBe(202);
    const destroyed = await waitForPhase(http, created.id, ['destroyed']);
    expect(destroyed.endpoints.public.ready).toBe(false);
    expect(await remaining(created.id)).toEqual([]);
    const update = await stack.stores.compositions.getOperation(created.id, slow.body.latest_operation.id);
    expect(update?.status).toBe('superseded');
  });

  it('fails an update whose image cannot be pulled while the previous override keeps serving', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(http, created.id, ['ready']);
    const bad = image('service-b', '5.0.0-missing');
    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: bad } },
    });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed).toMatchObject({ phase: 'failed', generation: 2, observed_generation: 1 });
    expect(failed.observed.blockers[0]).toMatchObject({ code: 'image_pull_failed', component: 'service-b' });
    expect(failed.endpoints.public.ready).toBe(true);
    const { hops } = await previewHops(stack, failed.endpoints.public.url);
    expect(imageOf(hops, 'service-b')).toBe(image('service-b', '2.0.0'));
    const diagnosis = await http.get(`/v1/compositions/${created.id}/diagnosis`);
    expect(diagnosis.body.notes.map((n: { code: string }) => n.code)).toContain(
      'previous_generation_serving',
    );
  });

  it('removes the fork a failed update left when the next update no longer overrides its component', async () => {
    const b2 = { image: image('service-b', '2.0.0') };
    const created = await createComposition(http, { 'service-b': b2 });
    await waitForPhase(http, created.id, ['ready']);
    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': b2, 'service-c': { image: image('service-c', '5.0.0-missing') } },
    });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed).toMatchObject({ phase: 'failed', observed_generation: 1 });
    const forkOfC = () =>
      stack.cluster.list('staging', Cluster.CompositionKinds, Cluster.forkSelector(created.id, 'service-c'));
    expect(await forkOfC()).not.toEqual([]);
    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 2,
      overrides: { 'service-b': b2 },
    });
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(ready).toMatchObject({ phase: 'ready', observed_generation: 3 });
    await waitUntil(async () => (await forkOfC()).length === 0, 10_000, 'the fork of service-c to go');
  });

  it('returns every component to the baseline with {} and removes forks and routes', async () => {
    const created = await createComposition(http, {
      'service-b': { image: image('service-b', '2.0.0') },
      'service-c': { image: image('service-c', '2.0.0') },
    });
    await waitForPhase(http, created.id, ['ready']);
    await http.patch(`/v1/compositions/${created.id}`, { expected_generation: 1, overrides: {} });
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    await waitUntil(
      async () =>
        (await remaining(created.id)).every((o) => o.kind === 'ConfigMap' || o.kind === 'HTTPRoute'),
      10_000,
      'forks to go',
    );
    const left = (await remaining(created.id)).map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(left).toEqual([`ConfigMap/preview-${created.id}`, `HTTPRoute/preview-${created.id}`]);
    const { hops } = await previewHops(stack, ready.endpoints.public.url);
    expect(imageOf(hops, 'service-b')).toBe(image('service-b', '1.0.0'));
    expect(imageOf(hops, 'service-c')).toBe(image('service-c', '1.0.0'));
  });
});

describe('destroy and expiry', () => {
  it('deletes everything the composition created and is repeatable', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(http, created.id, ['ready']);
    expect((await remaining(created.id)).length).toBeGreaterThan(0);
    await http.delete(`/v1/compositions/${created.id}`);
    const destroyed = await waitForPhase(http, created.id, ['destroyed']);
    expect(destroyed.latest_operation).toMatchObject({ kind: 'destroy', status: 'succeeded' });
    expect(await remaining(created.id)).toEqual([]);
    const again = await http.delete(`/v1/compositions/${created.id}`);
    expect(again.status).toBe(202);
    expect(again.body.phase).toBe('destroyed');
    const list = await http.get('/v1/compositions?limit=200');
    expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(created.id);
    const events = await http.get(`/v1/compositions/${created.id}/events?limit=100`);
    const types = events.body.items.map((e: { type: string }) => e.type);
    expect(types.slice(0, 2)).toEqual(['destroyed', 'step_finished']);
    expect(types).toContain('destroy_requested');
  });

  it('keeps a destroyed composition readable for the retention period, then answers 404', async () => {
    const created = await createComposition(http, {});
    await waitForPhase(http, created.id, ['ready']);
    await http.delete(`/v1/compositions/${created.id}`);
    await waitForPhase(http, created.id, ['destroyed']);
    clock.advance(31 * 24 * 3600);
    expect((await http.get(`/v1/compositions/${created.id}`)).status).toBe(404);
    clock.advance(-31 * 24 * 3600);
  });

  it('destroys compositions past their TTL through the expiry sweep, with reason expired', async () => {
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '2.0.0') } },
      { ttl: '1m' },
    );
    await waitForPhase(http, created.id, ['ready']);
    clock.advance(61);
    expect((await http.get(`/v1/compositions/${created.id}/status`)).body.phase).toBe('expired');
    await stack.scheduler.run('expiry-sweep');
    await waitForPhase(http, created.id, ['destroyed']);
    expect(await remaining(created.id)).toEqual([]);
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    expect(events.find((e: { type: string }) => e.type === 'expired')).toMatchObject({
      actor: { kind: 'system' },
    });
    expect(events.find((e: { type: string }) => e.type === 'destroy_requested')?.data.reason).toBe('expired');
    clock.advance(-61);
  });
});
