/**
 * A wake command's hold on the forks, in memory: the worker's wake job sets each fork's
 * ScaledObject's minimum, and the sleep sweep applies the hold again when that job is lost, then
 * lets go once `after` has passed since the command.
 */
import { Auth, Compositions } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { handleJob } from './runner.ts';
import {
  createComposition,
  image,
  type MemoryWorker,
  memoryWorker,
  sentJob,
  stored,
} from './testing/memory-worker.ts';

const after = 60;

async function drain(worker: MemoryWorker): Promise<void> {
  while (worker.queue.sent.length) await handleJob(worker.deps, sentJob(worker), 1);
}

/** A ready composition whose one fork (service-b) sleeps, as the sweep recorded it. */
async function sleepingComposition(worker: MemoryWorker): Promise<string> {
  worker.deps.sleep = { ...Compositions.defaultSleepSettings, defaultAfterSeconds: after };
  const { composition, job } = await createComposition(worker, image('service-b', '2.0.0'));
  await handleJob(worker.deps, job, 1);
  await drain(worker);
  const fork = worker.cluster
    .objects('Deployment')
    .find((d) => d.metadata.name === `service-b-${composition.id}`);
  if (!fork) throw new Error('no fork');
  await worker.cluster.apply({ ...fork, spec: { ...(fork.spec as object), replicas: 0 } });
  await Compositions.observeSleeping(worker.deps);
  expect((await stored(worker, composition.id)).sleep?.state).toBe('sleeping');
  return composition.id;
}

const scaledObject = (worker: MemoryWorker) => {
  const [object] = worker.cluster.objects('ScaledObject');
  if (!object) throw new Error('no ScaledObject');
  return {
    minimum: (object.spec as { minReplicaCount: number }).minReplicaCount,
    until: object.metadata.annotations?.['preview.svc/awake-until'] ?? null,
  };
};

describe('a wake command', () => {
  it("is carried out by the worker's wake job: each fork's ScaledObject held at one replica until awake_until", async () => {
    const worker = memoryWorker();
    const id = await sleepingComposition(worker);
    const answer = await Compositions.wake(worker.deps, Auth.devIdentity, id);
    expect(answer.status).toBe(202);
    const awakeUntil = (await stored(worker, id)).sleep?.awake_until;
    expect(scaledObject(worker)).toEqual({ minimum: 0, until: null });
    const job = sentJob(worker);
    expect(JSON.parse(job)).toEqual({ kind: 'wake', composition_id: id });
    await handleJob(worker.deps, job, 1);
    expect(scaledObject(worker)).toEqual({ minimum: 1, until: awakeUntil });
  });

  it('is applied by the sleep sweep when its job is lost, and let go once after has passed', async () => {
    const worker = memoryWorker();
    const id = await sleepingComposition(worker);
    await Compositions.wake(worker.deps, Auth.devIdentity, id);
    worker.queue.sent.length = 0;
    const { awake_until } = (await stored(worker, id)).sleep ?? {};
    // Its fork still at zero: coming up, not asleep again.
    await Compositions.observeSleeping(worker.deps);
    expect(scaledObject(worker)).toEqual({ minimum: 1, until: awake_until });
    expect((await stored(worker, id)).sleep).toMatchObject({ state: 'waking', awake_until });
    worker.deps.clock = { now: () => new Date(Date.parse(awake_until ?? '') + 1000) };
    await Compositions.observeSleeping(worker.deps);
    expect(scaledObject(worker)).toEqual({ minimum: 0, until: null });
    expect((await stored(worker, id)).sleep).toMatchObject({ state: 'sleeping', awake_until: null });
    const { items } = await worker.store.listEvents(id, { limit: 50, after: null });
    const sleepEvents = items.filter((e) => e.type === 'slept' || e.type === 'woke');
    expect(sleepEvents.map((e) => e.type).sort()).toEqual(['slept', 'slept', 'woke']);
    expect(sleepEvents.find((e) => e.at === worker.deps.clock.now().toISOString())?.type).toBe('slept');
  });
});
