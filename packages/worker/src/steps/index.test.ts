import { Operations, Rollout } from '@svc/core';
import { describe, expect, it } from 'vitest';
import {
  createComposition,
  destroyComposition,
  image,
  type MemoryWorker,
  memoryWorker,
  stored,
} from '../testing/memory-worker.ts';
import { steps } from './index.ts';
import type { StepContext } from './step.ts';

const { StepName } = Operations;
const override = image('service-b', '2.0.0');
const labelled = (worker: MemoryWorker, kind: string, id: string) =>
  worker.cluster.objects(kind).filter((o) => o.metadata.labels?.['preview.svc/composition'] === id);

/** A composition and its latest operation as stored, and the context a step of it runs in. */
async function contextOf(worker: MemoryWorker, id: string, lastAttempt = false): Promise<StepContext> {
  const composition = await stored(worker, id);
  const operation = await worker.store.getOperation(id, composition.latest_operation.id);
  if (!operation) throw new Error('no operation');
  return {
    deps: worker.deps,
    cluster: worker.cluster,
    composition,
    operation,
    seen: {},
    lastAttempt,
    fence: () => stored(worker, id),
  };
}

async function created(
  options: { message_isolation?: boolean } = {},
  settings: Parameters<typeof memoryWorker>[0] = {},
) {
  const worker = memoryWorker(settings);
  const { composition } = await createComposition(worker, override, options);
  return { worker, id: composition.id };
}

describe('the step table', () => {
  it('has a handler for every step an operation is made of', async () => {
    const { worker, id } = await created();
    const create = (await contextOf(worker, id)).operation.steps;
    await destroyComposition(worker, id);
    const destroy = (await contextOf(worker, id)).operation.steps;
    expect([...new Set([...create, ...destroy])].sort()).toEqual(Object.keys(steps).sort());
    expect(Object.keys(steps).sort()).toEqual(Object.values(StepName).sort());
  });

  it('apply: the anchor, the fork and its Service, and the public route to the baseline entry', async () => {
    const { worker, id } = await created();
    expect(await steps[StepName.Apply](await contextOf(worker, id))).toEqual({ kind: 'done' });
    expect(labelled(worker, 'ConfigMap', id)).toHaveLength(1);
    expect(labelled(worker, 'Deployment', id).map((d) => d.metadata.name)).toEqual([`service-b-${id}`]);
    expect(labelled(worker, 'Service', id)).toHaveLength(1);
    const routes = labelled(worker, 'HTTPRoute', id);
    expect(routes.map((r) => r.metadata.labels?.['preview.svc/component'])).toEqual([undefined]);
  });

  it('await-rollout: once the fork is rolled out, the mesh route that sends routed traffic to it', async () => {
    const { worker, id } = await created();
    const context = await contextOf(worker, id);
    await steps[StepName.Apply](context);
    expect(await steps[StepName.AwaitRollout](context)).toEqual({ kind: 'done' });
    const mesh = labelled(worker, 'HTTPRoute', id).filter(
      (r) => r.metadata.labels?.['preview.svc/component'],
    );
    expect(mesh.map((r) => r.metadata.labels?.['preview.svc/component'])).toEqual(['service-b']);
    expect(context.seen.forks?.map((d) => d.metadata.name)).toEqual([`service-b-${id}`]);
  });

  it('verify: a routing check of what answers on the preview URL', async () => {
    const { worker, id } = await created();
    const context = await contextOf(worker, id);
    await steps[StepName.Apply](context);
    const before = await steps[StepName.Verify](context);
    expect(before).toMatchObject({
      kind: 'done',
      check: { status: 'failed', coverage: { 'service-b': 'mismatch' } },
    });
    await steps[StepName.AwaitRollout](context);
    const after = await steps[StepName.Verify](context);
    expect(after).toMatchObject({
      kind: 'done',
      check: { status: 'passed', coverage: { 'service-b': 'verified' } },
    });
  });

  it('finish: a create ends ready with what it observed, a destroy ends destroyed', async () => {
    const { worker, id } = await created();
    const context = await contextOf(worker, id);
    for (const step of [StepName.Apply, StepName.AwaitRollout, StepName.Verify]) await steps[step](context);
    const ready = await steps[StepName.Finish](context);
    expect(ready).toMatchObject({ kind: 'done', composition: { phase: 'ready', observed_generation: 1 } });

    await destroyComposition(worker, id);
    const destroyed = await steps[StepName.Finish](await contextOf(worker, id));
    expect(destroyed).toMatchObject({ kind: 'done', composition: { phase: 'destroyed' } });
  });

  it('delete and await-deletion: the anchor goes with what it owns, and a straggler it does not own after it', async () => {
    // Room for a loaded machine: the step returns as soon as nothing is left, and a bound of 50 ms
    // could lapse between deleting the straggler and seeing it gone (a full run once did).
    const { worker, id } = await created({}, { watchBoundMs: 5000 });
    const context = await contextOf(worker, id);
    await steps[StepName.Apply](context);
    // A late write of a superseded step: labelled with the composition, owned by nothing.
    await worker.cluster.apply({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'late', namespace: 'staging', labels: { 'preview.svc/composition': id } },
    });

    expect(await steps[StepName.Delete](context)).toEqual({ kind: 'done' });
    expect(labelled(worker, 'ConfigMap', id)).toEqual([]);
    expect(labelled(worker, 'Deployment', id)).toEqual([]);
    expect(labelled(worker, 'Service', id).map((s) => s.metadata.name)).toEqual(['late']);
    expect(await steps[StepName.AwaitDeletion](context)).toEqual({ kind: 'done' });
    expect(labelled(worker, 'Service', id)).toEqual([]);
  });

  it('release-messaging: a failure is retried by the queue, and on the last attempt ends the step with what is left', async () => {
    const { worker, id } = await created({ message_isolation: true });
    expect(await steps[StepName.ReleaseMessaging](await contextOf(worker, id))).toEqual({ kind: 'done' });

    worker.messaging.failRemoval(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await expect(steps[StepName.ReleaseMessaging](await contextOf(worker, id))).rejects.toThrow(
      'socket hang up',
    );
    const last = await steps[StepName.ReleaseMessaging](await contextOf(worker, id, true));
    expect(last).toMatchObject({
      kind: 'done',
      leftovers: [
        {
          code: Rollout.RolloutBlockerCode.MessagingCleanupFailed,
          message: expect.stringContaining('connection failed (ECONNRESET)'),
        },
      ],
    });
  });
});
