/**
 * Runs the steps of an operation. A message only names the step: the operation record decides, so
 * a duplicate, late or superseded message finds its step done or its operation no longer current
 * and does nothing (delivery is at least once). The transitions are core's (`startOperation`,
 * `advanceOperation`…); this file reads, calls them and commits what they answer.
 *
 * A chain takes the operation's lease when it picks the message up (the start write of a pending
 * operation, `takeLease` of a running one) and renews it while it works; a message whose operation
 * another live chain holds is dropped. When a step completes, the next one runs in the same
 * invocation while the chain budget lasts; the chain gives the lease up with the write that hands
 * the operation to the queue (a wait, a spent budget, a failed step) or ends it. A crash lets the
 * lease lapse within seconds and the redispatch sweep takes the operation over; every step is safe
 * to run again.
 */
import { randomUUID } from 'node:crypto';
import {
  type Cluster,
  Compositions,
  type DependencyUnavailableError,
  Jobs,
  Operations,
  outwardCause,
  Rollout,
} from '@svc/core';
import type { WorkerDeps } from './deps.ts';
import { handleForgeJob } from './forge.ts';
import { type ChainLease, holdLease } from './lease.ts';
import { WorkerMetric } from './metrics.ts';
import { steps } from './steps/index.ts';
import { type ChainSeen, LeaseLost, noCluster, type StepContext, Superseded } from './steps/step.ts';

export async function handleJob(deps: WorkerDeps, body: string, receiveCount: number): Promise<void> {
  let job: Jobs.Job;
  try {
    job = Jobs.parse(body);
  } catch (error) {
    // Unreadable: fail every receive so the queue moves it to the dead-letter queue.
    throw new Error(`unreadable job message: ${messageOf(error)}`);
  }
  if (job.kind === 'wake') return Compositions.wakeForks(deps, job.composition_id);
  if (job.kind !== 'step') return handleForgeJob(deps, job, receiveCount);
  await runOperation(deps, job, receiveCount);
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * What the steps of one chain share: the job that started it, the composition as the chain began,
 * what its steps saw and the lease it holds.
 */
interface Run {
  deps: WorkerDeps;
  job: Jobs.StepJob;
  receiveCount: number;
  composition: Compositions.CompositionRecord;
  /** The composition's cluster, looked up once per chain. */
  cluster: Cluster.ClusterLookup;
  seen: ChainSeen;
  lease: ChainLease;
}

async function runOperation(deps: WorkerDeps, job: Jobs.StepJob, receiveCount: number): Promise<void> {
  const [found, current] = await Promise.all([
    deps.compositions.getOperation(job.composition_id, job.operation_id),
    deps.compositions.get(job.composition_id),
  ]);
  if (!found || !current) {
    // A finished operation's late message is normal; one naming nothing that exists is not.
    deps.log({
      level: 'warn',
      msg: 'job names an unknown operation; dropped',
      operation_id: job.operation_id,
      composition_id: job.composition_id,
      step: job.step,
      found: { operation: found !== null, composition: current !== null },
    });
    deps.metrics.count(WorkerMetric.UnknownOperationMessages);
    return;
  }
  if (!Operations.isUnfinished(found)) return;
  const step = Operations.nextStep(found);
  if (step === undefined || step !== job.step) return;
  if (!Operations.isCurrentOperation(current, found)) {
    await supersede(deps, found);
    return;
  }
  const taken = await takeOperation(deps, current, found);
  if (!taken) return;
  const lease = holdLease(deps, taken.operation, taken.holder);
  try {
    const cluster = deps.clusters.lookup(taken.composition.cluster);
    const run = { deps, job, receiveCount, composition: taken.composition, cluster, seen: {}, lease };
    await runChain(run, Rollout.chainFrom(taken.operation), step);
  } catch (error) {
    // A write of the chain's own failed (not a crash: the process lives on): the lease goes now, so
    // the queue's retry of this message runs instead of waiting for it to lapse. Best effort.
    await lease.stop();
    const dueAt = Operations.overdueAt(deps.clock.now());
    await deps.compositions.releaseLease(taken.operation, { holder: taken.holder, dueAt }).catch(() => false);
    throw error;
  } finally {
    await lease.stop();
  }
}

/**
 * Takes the operation's lease for a new chain: a pending operation starts with it (one write with
 * the composition), a running one is leased unless another live chain holds it. Null when this
 * message has nothing to do.
 */
async function takeOperation(
  deps: WorkerDeps,
  composition: Compositions.CompositionRecord,
  operation: Operations.Operation,
): Promise<{
  composition: Compositions.CompositionRecord;
  operation: Operations.Operation;
  holder: string;
} | null> {
  const holder = randomUUID();
  const now = deps.clock.now();
  if (operation.status === Operations.OperationStatus.Pending) {
    const started = Rollout.startOperation(composition, operation, now, holder);
    if (await deps.compositions.commit(started)) {
      return { composition: started.composition.record, operation: started.operation.record, holder };
    }
    await lostWrite(deps, operation, 'start');
    return null;
  }
  const leased = Operations.leasedByAnother(operation, holder, now)
    ? null
    : await deps.compositions.takeLease(operation, { holder, until: Operations.leaseUntil(now), now });
  if (leased) return { composition, operation: leased, holder };
  // A duplicate (the sweep's, a redelivery): the chain holding the lease carries the operation on.
  deps.log({
    level: 'info',
    msg: 'operation held by another chain; message dropped',
    operation_id: operation.id,
    composition_id: operation.composition_id,
  });
  return null;
}

async function runChain(run: Run, start: Rollout.Chain, first: Operations.StepName): Promise<void> {
  const { deps, composition, lease } = run;
  const chainEnds = Date.now() + deps.settings.chainBudgetMs;
  let chain = start;
  let step = first;
  for (;;) {
    const outcome = await runStep(run, chain, step);
    if (outcome === null) return;
    // Every way out of the loop writes the operation without this chain's lease.
    const now = deps.clock.now();
    if (outcome.kind === 'fail') {
      await lease.stop();
      await fail(deps, composition, chain, outcome.blockers);
      return;
    }
    if (outcome.kind === 'wait') {
      await lease.stop();
      const saved = await save(deps, Rollout.waitOperation(chain, composition, outcome, now));
      if (saved) await Compositions.enqueueNextStep(deps, saved, outcome.delaySeconds);
      return;
    }
    const advanced = Rollout.advanceOperation(chain, composition, step, now, outcome);
    if (advanced.next === null) {
      await lease.stop();
      await complete(deps, composition, advanced.chain, outcome.composition ?? composition);
      return;
    }
    chain = advanced.chain;
    step = advanced.next;
    if (Date.now() >= chainEnds) {
      await lease.stop();
      const saved = await save(deps, Rollout.handOff(chain, now));
      if (saved) await Compositions.enqueueNextStep(deps, saved);
      return;
    }
  }
}

/**
 * Runs one step. Null when the operation turned out superseded (and is recorded so) or this chain's
 * lease was taken over (nothing written: the new chain carries on). A step of a composition whose
 * cluster the stage does not know answers without running; one whose cluster is down (its call
 * found the cluster unavailable, and the cluster does not answer a probe either) waits for it. A
 * step that throws otherwise (a cluster that answers, but not this call) hands the operation back
 * keeping what the chain achieved, so the retry starts from this step; on the queue's last receive
 * it fails the operation. The error is rethrown for the queue to retry, unless the step is not the
 * one the message names (see `stepFailed`).
 */
async function runStep(
  run: Run,
  chain: Rollout.Chain,
  step: Operations.StepName,
): Promise<Rollout.StepOutcome | null> {
  const { deps, composition } = run;
  if (!run.cluster.known && Rollout.needsCluster(chain.operation.kind, step)) {
    return Rollout.unknownClusterOutcome(composition, chain.operation, step, run.cluster.reason);
  }
  try {
    return await steps[step](stepContext(run, chain));
  } catch (error) {
    if (error instanceof Superseded) {
      await run.lease.stop();
      await supersede(deps, chain.written);
      return null;
    }
    if (error instanceof LeaseLost) return null;
    if (run.cluster.known && Rollout.isClusterUnavailable(error) && !(await answers(run.cluster.cluster))) {
      return clusterWait(run, chain, step, error);
    }
    if ((await stepFailed(run, chain, step, error)) === 'sent-again') return null;
    throw error;
  }
}

/** What a step of this chain is given: the composition's cluster, and a fence on its operation. */
function stepContext(run: Run, chain: Rollout.Chain): StepContext {
  const { deps, job, composition } = run;
  const written = chain.written;
  return {
    deps,
    cluster: run.cluster.known ? run.cluster.cluster : noCluster(run.cluster.reason),
    composition,
    operation: chain.operation,
    seen: run.seen,
    lastAttempt: run.receiveCount >= deps.settings.maxReceiveCount,
    async fence() {
      if (run.lease.lost()) throw new LeaseLost();
      const latest = await deps.compositions.get(job.composition_id);
      if (!latest || !Operations.isCurrentOperation(latest, written)) throw new Superseded();
      return latest;
    },
  };
}

/** How long the probe of a cluster that failed a step's call waits for its `/version`. */
const clusterProbeMs = 2000;

/** Whether the cluster answers at all: one that does failed only that call, which is the step's to retry. */
const answers = (cluster: Cluster.ClusterPort) =>
  cluster.health.check(AbortSignal.timeout(clusterProbeMs)).then(
    () => true,
    () => false,
  );

/** The composition's cluster is down: the step waits for it, whatever receive this is. */
function clusterWait(
  run: Run,
  chain: Rollout.Chain,
  step: Operations.StepName,
  error: DependencyUnavailableError,
): Rollout.StepOutcome {
  const { deps } = run;
  const cluster = run.cluster.name ?? '';
  deps.log({
    level: 'warn',
    msg: 'cluster unavailable; the step waits for it',
    cluster,
    step,
    operation_id: chain.written.id,
    error: String(error),
  });
  return Rollout.clusterUnavailableWait({
    operation: chain.operation,
    cluster,
    // What the cluster did, without the "cluster unavailable" the blocker says already.
    cause: outwardCause(error.cause ?? error),
    now: deps.clock.now(),
    delaySeconds: deps.settings.recheckDelaySeconds,
  });
}

/**
 * A step threw: the operation goes back to the queue, and fails on the queue's last receive. A step
 * the chain went on to past the message's own is sent again in a message of its own, with its own
 * receives: the queue's retry of this message would name a step that is done and be dropped, leaving
 * the operation to the redispatch sweep (a minute or more).
 */
async function stepFailed(
  run: Run,
  chain: Rollout.Chain,
  step: Operations.StepName,
  error: unknown,
): Promise<'retried-by-queue' | 'sent-again'> {
  const { deps, composition } = run;
  const written = chain.written;
  deps.log({
    level: 'warn',
    msg: 'step failed',
    step,
    operation_id: written.id,
    receive_count: run.receiveCount,
    error: String(error),
  });
  await run.lease.stop();
  const saved = await save(deps, Rollout.handOff(chain, deps.clock.now()));
  if (step !== run.job.step) {
    if (saved) await Compositions.enqueueNextStep(deps, saved);
    return 'sent-again';
  }
  if (run.receiveCount >= deps.settings.maxReceiveCount) {
    const blocker = Rollout.stepFailedBlocker(step, run.receiveCount, outwardCause(error), written.id);
    await fail(deps, composition, Rollout.chainFrom(saved ?? written), [blocker]);
  }
  return 'retried-by-queue';
}

/**
 * Writes the chain's progress, conditional on the operation as last written; null when that changed
 * (another chain of the operation wrote first and carries it on: this one stops, logged and counted).
 */
async function save(deps: WorkerDeps, chain: Rollout.Chain): Promise<Operations.Operation | null> {
  const write = Rollout.chainWrite(chain);
  if (!write) return chain.written;
  if (await deps.compositions.commit(write)) return write.operation.record;
  await lostWrite(deps, chain.written, 'progress', Operations.nextStep(chain.operation) ?? null);
  return null;
}

/**
 * Records the end of the last step. When the write's condition fails, reads again: an operation
 * another chain finished or moved on, or that a later operation superseded, is theirs (logged and
 * counted); otherwise (the composition alone changed) the completion is written over what was read.
 */
async function complete(
  deps: WorkerDeps,
  composition: Compositions.CompositionRecord,
  chain: Rollout.Chain,
  final: Compositions.CompositionRecord,
): Promise<void> {
  const last = chain.operation.steps.at(-1) ?? null;
  let read = { composition, chain };
  for (let attempt = 0; attempt < 3; attempt++) {
    const write = Rollout.completeOperation(read.composition, read.chain, final, deps.clock.now());
    if (await deps.compositions.commit(write)) return;
    const latest = await reread(deps, chain.written);
    const ours =
      latest !== null &&
      latest.chain.written.lock_version === chain.written.lock_version &&
      Operations.isCurrentOperation(latest.composition, latest.chain.written);
    if (!latest || !ours) {
      await lostWrite(deps, chain.written, 'complete', last);
      return;
    }
    read = { composition: latest.composition, chain: { ...chain, written: latest.chain.written } };
  }
  await lostWrite(deps, chain.written, 'complete', last);
}

/**
 * A chain write whose condition failed and that this chain gives up: logged with its ids, the step
 * it was at and what the operation is now, and counted. At debug level: with at-least-once
 * delivery, a redispatch and a destroy superseding a rollout, losing such a race is normal
 * operation (the metric is what to watch), not something for the `npm start` terminal.
 */
async function lostWrite(
  deps: WorkerDeps,
  operation: Operations.Operation,
  write: string,
  step: string | null = Operations.nextStep(operation) ?? null,
): Promise<void> {
  const latest = await deps.compositions.getOperation(operation.composition_id, operation.id);
  deps.log({
    level: 'debug',
    msg: 'chain write lost to another writer',
    write,
    operation_id: operation.id,
    composition_id: operation.composition_id,
    step,
    now: latest ? { status: latest.status, step: Operations.nextStep(latest) ?? null } : null,
  });
  deps.metrics.count(WorkerMetric.LostChainWrites);
}

/**
 * Records the failure, re-reading after a conflicting write (a few times) so the operation is never
 * left pending. A failed update leaves the previous fork serving.
 */
async function fail(
  deps: WorkerDeps,
  composition: Compositions.CompositionRecord,
  chain: Rollout.Chain,
  blockers: Compositions.Blocker[],
): Promise<void> {
  let read: { composition: Compositions.CompositionRecord; chain: Rollout.Chain } | null = {
    composition,
    chain,
  };
  for (let attempt = 0; attempt < 5 && read; attempt++) {
    if (!Operations.isUnfinished(read.chain.written)) return;
    const write = Rollout.failOperation(read.composition, read.chain, blockers, deps.clock.now());
    if (await deps.compositions.commit(write)) return;
    read = await reread(deps, chain.written);
  }
}

async function reread(
  deps: WorkerDeps,
  operation: Operations.Operation,
): Promise<{ composition: Compositions.CompositionRecord; chain: Rollout.Chain } | null> {
  const [composition, latest] = await Promise.all([
    deps.compositions.get(operation.composition_id),
    deps.compositions.getOperation(operation.composition_id, operation.id),
  ]);
  return composition && latest ? { composition, chain: Rollout.chainFrom(latest) } : null;
}

async function supersede(deps: WorkerDeps, operation: Operations.Operation): Promise<void> {
  const latest = await deps.compositions.getOperation(operation.composition_id, operation.id);
  if (!latest || !Operations.isUnfinished(latest)) return;
  const composition = await deps.compositions.get(operation.composition_id);
  const write = Rollout.supersedeOperation(latest, composition, deps.clock.now());
  if (!(await deps.compositions.commit(write))) await lostWrite(deps, latest, 'supersede');
}
