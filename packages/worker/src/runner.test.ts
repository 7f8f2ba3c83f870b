import {
  Cluster,
  Compositions,
  Dependency,
  DependencyUnavailableError,
  Operations,
  Rollout,
} from '@svc/core';
import { describe, expect, it } from 'vitest';
import { WorkerMetric } from './metrics.ts';
import { handleJob } from './runner.ts';
import {
  createComposition,
  destroyComposition,
  image,
  type MemoryWorker,
  memoryWorker,
  sentJob,
  stored,
} from './testing/memory-worker.ts';

const override = image('service-b', '2.0.0');

const operationOf = async (worker: MemoryWorker, composition: Compositions.CompositionRecord) => {
  const latest = await stored(worker, composition.id);
  const operation = await worker.store.getOperation(composition.id, latest.latest_operation.id);
  if (!operation) throw new Error('no operation');
  return operation;
};

const sentSteps = (worker: MemoryWorker) =>
  worker.queue.sent.map(({ job, delaySeconds }) => ({ step: (job as { step: string }).step, delaySeconds }));

const connectionReset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

/** Delivers every message sent, oldest first, as the queue would, until none is left. */
async function drain(worker: MemoryWorker): Promise<string[]> {
  const delivered: string[] = [];
  while (worker.queue.sent.length) {
    const job = sentJob(worker);
    delivered.push(JSON.parse(job).step);
    await handleJob(worker.deps, job, 1);
  }
  return delivered;
}

describe('a chain of steps', () => {
  it('runs a create from its first message to ready in one invocation', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    await handleJob(worker.deps, job, 1);

    expect(await stored(worker, composition.id)).toMatchObject({
      phase: Compositions.Phase.Ready,
      observed_generation: 1,
      active_operation: null,
      public_ready: true,
    });
    const operation = await operationOf(worker, composition);
    expect(operation).toMatchObject({ status: 'succeeded', next_step: operation.steps.length });
    expect(worker.queue.sent).toEqual([]);
    expect(worker.store.checks.map((c) => c.status)).toEqual(['passed']);
    const fork = worker.cluster
      .objects('Deployment')
      .find((d) => d.metadata.name === `service-b-${composition.id}`);
    expect(JSON.stringify(fork)).toContain(override);
    expect(worker.cluster.objects('HTTPRoute')).toHaveLength(2);
  });

  it('hands the operation to the queue when its chain budget is spent, and each next message carries it on', async () => {
    const worker = memoryWorker({ chainBudgetMs: 0 });
    const { composition, job } = await createComposition(worker, override);
    await handleJob(worker.deps, job, 1);

    expect(sentSteps(worker)).toEqual([{ step: 'await-rollout', delaySeconds: 0 }]);
    expect(await operationOf(worker, composition)).toMatchObject({
      status: 'running',
      next_step: 1,
      lease_holder: null,
    });
    expect(await drain(worker)).toEqual(['await-rollout', 'verify', 'finish']);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Ready);
  });

  it('records what a waiting step saw, gives the lease up and sends the step again after the recheck delay', async () => {
    const worker = memoryWorker({ recheckDelaySeconds: 3 });
    worker.cluster.stall();
    const { composition, job } = await createComposition(worker, override);
    await handleJob(worker.deps, job, 1);

    expect(sentSteps(worker)).toEqual([{ step: 'await-rollout', delaySeconds: 3 }]);
    const operation = await operationOf(worker, composition);
    expect(operation).toMatchObject({ status: 'running', next_step: 1, lease_holder: null });
    expect(operation.observations.ready).toBe(0);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Provisioning);
  });

  it('runs a destroy: the anchor goes with everything it owns, and the composition ends destroyed', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    await handleJob(worker.deps, job, 1);
    await handleJob(worker.deps, await destroyComposition(worker, composition.id), 1);

    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Destroyed);
    const left = ['ConfigMap', 'Deployment', 'Service', 'HTTPRoute'].flatMap((kind) =>
      worker.cluster
        .objects(kind)
        .filter((o) => o.metadata.labels?.['preview.svc/composition'] === composition.id),
    );
    expect(left).toEqual([]);
    expect(worker.cluster.objects('Deployment').map((d) => d.metadata.name)).toEqual([
      'service-a',
      'service-b',
      'service-c',
    ]);
  });
});

describe('messages a chain does not act on', () => {
  it('does nothing for a duplicate, a late message or one naming a step that is not next', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    const stepMessage = (step: string) => JSON.stringify({ ...JSON.parse(job), step });
    await handleJob(worker.deps, stepMessage('verify'), 1);
    expect(await operationOf(worker, composition)).toMatchObject({ status: 'pending', next_step: 0 });

    await handleJob(worker.deps, job, 1);
    const [done, operation] = [await stored(worker, composition.id), await operationOf(worker, composition)];
    await handleJob(worker.deps, job, 2);
    await handleJob(worker.deps, stepMessage('finish'), 1);
    expect(await stored(worker, composition.id)).toEqual(done);
    expect(await operationOf(worker, composition)).toEqual(operation);
    expect(worker.queue.sent).toEqual([]);
  });

  it('drops a message naming an operation that does not exist, logging and counting it', async () => {
    const worker = memoryWorker();
    const job = { kind: 'step', operation_id: 'op-none', composition_id: 'c-none', step: 'apply' };
    await handleJob(worker.deps, JSON.stringify(job), 1);
    expect(worker.metrics.counts()).toEqual({ [WorkerMetric.UnknownOperationMessages]: 1 });
    expect(worker.logged).toContainEqual(
      expect.objectContaining({ msg: 'job names an unknown operation; dropped', operation_id: 'op-none' }),
    );
  });

  it('leaves an operation that another live chain holds to that chain, and takes over one whose lease lapsed', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    const operation = await operationOf(worker, composition);
    const heldUntil = (ms: number) => new Date(Date.now() + ms).toISOString();
    worker.store.overwriteOperation({
      ...operation,
      status: 'running',
      lease_holder: 'other',
      due_at: heldUntil(10_000),
    });
    await handleJob(worker.deps, job, 1);
    expect(worker.cluster.objects('ConfigMap')).toEqual([]);
    expect(worker.logged).toContainEqual(
      expect.objectContaining({ msg: 'operation held by another chain; message dropped' }),
    );

    worker.store.overwriteOperation({
      ...operation,
      status: 'running',
      lease_holder: 'other',
      due_at: heldUntil(-1),
    });
    await handleJob(worker.deps, job, 1);
    expect(await operationOf(worker, composition)).toMatchObject({ status: 'succeeded', lease_holder: null });
  });

  it('records an operation that is no longer the current one as superseded, and touches nothing', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    // A later operation made current whose write of this one's supersession never landed.
    const later = {
      ...composition,
      active_operation: 'op-later',
      epoch: composition.epoch + 1,
      lock_version: composition.lock_version + 1,
    };
    expect(
      await worker.store.replace({
        composition: later,
        expected_lock_version: composition.lock_version,
        events: [],
      }),
    ).toBe(true);
    await handleJob(worker.deps, job, 1);
    expect(await worker.store.getOperation(composition.id, composition.latest_operation.id)).toMatchObject({
      status: Operations.OperationStatus.Superseded,
    });
    expect(worker.cluster.objects('ConfigMap')).toEqual([]);
  });
});

describe('how failures map', () => {
  it('refuses an unreadable message on every receive, so the queue moves it to the dead-letter queue', async () => {
    const worker = memoryWorker();
    await expect(handleJob(worker.deps, '{"kind":"step"', 1)).rejects.toThrow(/^unreadable job message/);
    await expect(handleJob(worker.deps, '{"kind":"step","step":"apply"}', 5)).rejects.toThrow(
      /^unreadable job message/,
    );
  });

  it('hands the operation back when a step throws and rethrows for the queue to retry, which carries it on', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    worker.cluster.failNext('apply', connectionReset());
    await expect(handleJob(worker.deps, job, 1)).rejects.toThrow('read ECONNRESET');

    const operation = await operationOf(worker, composition);
    expect(operation).toMatchObject({ status: 'running', next_step: 0, lease_holder: null, error: null });
    expect(Date.parse(operation.due_at ?? '')).toBeGreaterThan(Date.now());
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Provisioning);
    expect(worker.logged).toContainEqual(
      expect.objectContaining({ msg: 'step failed', step: 'apply', receive_count: 1 }),
    );

    await handleJob(worker.deps, job, 2);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Ready);
  });

  it('gives a step that throws after its chain went past the message’s step a message of its own, retried at once', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    worker.cluster.failNext('watchDeployments', connectionReset());
    // The message names apply, which is done: its retry would be stale, and the operation left to
    // the redispatch sweep (a minute or more).
    await handleJob(worker.deps, job, 1);
    expect(worker.logged).toContainEqual(
      expect.objectContaining({ msg: 'step failed', step: 'await-rollout', receive_count: 1 }),
    );
    expect(await drain(worker)).toEqual(['await-rollout']);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Ready);
  });

  it("fails the operation on the queue's last receive, with a step_failed blocker naming the cause", async () => {
    const worker = memoryWorker({ maxReceiveCount: 3 });
    const { composition, job } = await createComposition(worker, override);
    worker.cluster.failNext('apply', connectionReset());
    await expect(handleJob(worker.deps, job, 3)).rejects.toThrow('read ECONNRESET');

    const failed = await stored(worker, composition.id);
    expect(failed).toMatchObject({
      phase: Compositions.Phase.Failed,
      active_operation: null,
      public_ready: false,
    });
    expect(failed.observed.blockers).toEqual([
      {
        code: Rollout.RolloutBlockerCode.StepFailed,
        component: null,
        message: expect.stringMatching(
          /^step apply failed 3 times; last error: connection failed \(ECONNRESET\)/,
        ),
      },
    ]);
    expect(await operationOf(worker, composition)).toMatchObject({
      status: 'failed',
      lease_holder: null,
      due_at: null,
      error: { code: Rollout.RolloutBlockerCode.StepFailed },
    });
  });

  it("fails the operation with a step's own blockers when it cannot go on", async () => {
    const worker = memoryWorker();
    await worker.cluster.delete({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      namespace: 'staging',
      name: 'service-b',
    });
    const { composition, job } = await createComposition(worker, override);
    await handleJob(worker.deps, job, 1);

    const failed = await stored(worker, composition.id);
    expect(failed.phase).toBe(Compositions.Phase.Failed);
    expect(failed.observed.blockers.map((b) => [b.code, b.component])).toEqual([
      [Rollout.RolloutBlockerCode.BaselineWorkloadMissing, 'service-b'],
    ]);
    expect(worker.cluster.objects('ConfigMap')).toEqual([]);
  });

  it('stops, logs and counts a chain whose write another writer got to first', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    const operation = await operationOf(worker, composition);
    worker.store.beforeNextCommit(() =>
      worker.store.overwriteOperation({ ...operation, lock_version: operation.lock_version + 1 }),
    );
    await handleJob(worker.deps, job, 1);

    expect(worker.metrics.counts()).toEqual({ [WorkerMetric.LostChainWrites]: 1 });
    expect(worker.logged).toContainEqual(
      expect.objectContaining({ msg: 'chain write lost to another writer', write: 'start', step: 'apply' }),
    );
    expect(worker.cluster.objects('ConfigMap')).toEqual([]);
  });

  it('drops a forge job when no forge application is configured', async () => {
    const worker = memoryWorker();
    const job = { kind: 'forge-preview', project: 'demo', repository: 'demo-org/service-b', number: 1 };
    await handleJob(worker.deps, JSON.stringify(job), 1);
    expect(worker.logged).toContainEqual(
      expect.objectContaining({
        msg: 'forge job dropped: no forge application is configured',
        kind: 'forge-preview',
      }),
    );
    expect(worker.queue.sent).toEqual([]);
  });
});

describe('a composition’s cluster', () => {
  const refused = () =>
    new DependencyUnavailableError(
      Dependency.Cluster,
      'fetch failed (ECONNREFUSED)',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    );

  it('that does not answer holds the rollout: it waits, says so once and in its observations, whatever the receive count', async () => {
    const worker = memoryWorker({ maxReceiveCount: 1, recheckDelaySeconds: 4 });
    const { composition, job } = await createComposition(worker, override);
    worker.cluster.down(refused());
    await handleJob(worker.deps, job, 1);

    expect(sentSteps(worker)).toEqual([{ step: 'apply', delaySeconds: 4 }]);
    const waiting = await operationOf(worker, composition);
    expect(waiting).toMatchObject({ status: 'running', next_step: 0, lease_holder: null, error: null });
    expect(waiting.observations.cluster_unavailable).toEqual({
      cluster: 'local',
      cause: 'connection failed (ECONNREFUSED)',
      since: expect.any(String),
    });
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Provisioning);
    await handleJob(worker.deps, sentJob(worker), 1);
    const since = waiting.observations.cluster_unavailable?.since;
    expect((await operationOf(worker, composition)).observations.cluster_unavailable?.since).toBe(since);
    const progress = worker.store.events.filter((e) => e.type === 'rollout_progress');
    expect(progress.map((e) => e.message)).toEqual([
      `cluster "local" is unavailable since ${since} (connection failed (ECONNREFUSED)); the create waits for it`,
    ]);

    worker.cluster.down(null);
    await drain(worker);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Ready);
    expect((await operationOf(worker, composition)).observations.cluster_unavailable).toBeUndefined();
  });

  it('that answers, but not a step’s call (a 5xx of one resource), leaves the step to the queue’s retries', async () => {
    const worker = memoryWorker({ maxReceiveCount: 2 });
    const { composition, job } = await createComposition(worker, override);
    worker.cluster.failNext('apply', refused());
    await expect(handleJob(worker.deps, job, 2)).rejects.toThrow(DependencyUnavailableError);
    const failed = await stored(worker, composition.id);
    expect(failed.phase).toBe(Compositions.Phase.Failed);
    expect(failed.observed.blockers[0]?.code).toBe('step_failed');
    expect((await operationOf(worker, composition)).observations.cluster_unavailable).toBeUndefined();
  });

  it('that the installation does not know fails a create naming it, and lets a destroy finish recording what may be left', async () => {
    const worker = memoryWorker();
    const { composition, job } = await createComposition(worker, override);
    worker.deps.clusters = Cluster.clusterRegistry(new Map([['elsewhere', worker.cluster]]));
    await handleJob(worker.deps, job, 1);
    const failed = await stored(worker, composition.id);
    expect(failed.phase).toBe(Compositions.Phase.Failed);
    expect(failed.observed.blockers).toEqual([
      {
        code: 'unknown_cluster',
        message:
          'cluster "local" is not one of this installation\'s clusters ("elsewhere"): the rollout cannot reach it',
        component: null,
      },
    ]);
    expect(worker.cluster.objects('ConfigMap')).toEqual([]);

    await handleJob(worker.deps, await destroyComposition(worker, composition.id), 1);
    expect((await stored(worker, composition.id)).phase).toBe(Compositions.Phase.Destroyed);
    const incomplete = worker.store.events.filter((e) => e.type === 'cleanup_incomplete');
    expect(incomplete.map((e) => e.message)).toEqual([
      `delete left something behind: what composition ${composition.id} made in namespace staging may be left: cluster "local" is not one of this installation's clusters ("elsewhere")`,
    ]);
  });
});
