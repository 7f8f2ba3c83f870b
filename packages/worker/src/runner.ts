/**
 * Runs the steps of an operation. A message only names the step: the operation record decides, so
 * a duplicate, late or superseded message finds its step done or its operation no longer current
 * and does nothing (delivery is at least once).
 *
 * When a step completes, the next one runs in the same invocation while the chain budget lasts;
 * progress is written at every wait, failure and completion (and when the budget runs out, with
 * the next step enqueued). A crash in between is what a lost send is: the operation's `due_at`
 * passes and the redispatch sweep re-enqueues its next step; every step is safe to run again.
 */
import {
  addSeconds,
  type Blocker,
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  enqueueNextStep,
  eventFor,
  Jobs,
  type Operation,
  OperationKind,
  OperationStatus,
  Phase,
  redispatchAfterSeconds,
} from '@svc/core';
import type { WorkerDeps } from './deps.ts';
import { type StepContext, type StepOutcome, Superseded, steps } from './steps.ts';

const system = { kind: 'system', subject: 'worker' } as const;

export async function handleJob(deps: WorkerDeps, body: string, receiveCount: number): Promise<void> {
  let job: Jobs.Job;
  try {
    job = Jobs.parseJob(body);
  } catch (error) {
    // Unreadable: fail every receive so the queue moves it to the dead-letter queue.
    throw new Error(`unreadable job message: ${(error as Error).message}`);
  }
  await runOperation(deps, job, receiveCount);
}

function isCurrent(composition: CompositionRecord, operation: Operation): boolean {
  return composition.epoch === operation.epoch && composition.active_operation === operation.id;
}

const unfinished = (operation: Operation) =>
  operation.status === OperationStatus.Pending || operation.status === OperationStatus.Running;

async function runOperation(deps: WorkerDeps, job: Jobs.Job, receiveCount: number): Promise<void> {
  const { compositions } = deps;
  const [found, current] = await Promise.all([
    compositions.getOperation(job.composition_id, job.operation_id),
    compositions.get(job.composition_id),
  ]);
  if (!found || !unfinished(found) || found.steps[found.next_step] !== job.step) return;
  if (!current) return;
  if (!isCurrent(current, found)) {
    await supersede(deps, found);
    return;
  }
  let composition = current;
  let operation = found;
  if (operation.status === OperationStatus.Pending) {
    const started = await start(deps, composition, operation);
    if (!started) return;
    ({ composition, operation } = started);
  }

  const chainEnds = Date.now() + deps.settings.chainBudgetMs;
  /** What the chain did since the last write: the operation as it now stands in memory, and its events. */
  let pending: { operation: Operation; events: CompositionEvent[] } = { operation, events: [] };

  for (;;) {
    const step = pending.operation.steps[pending.operation.next_step] as string;
    const context: StepContext = {
      deps,
      composition,
      operation: pending.operation,
      async fence() {
        const latest = await compositions.get(job.composition_id);
        if (!latest || !isCurrent(latest, operation)) throw new Superseded();
        return latest;
      },
    };
    let outcome: StepOutcome;
    try {
      const run = steps[step];
      if (!run) throw new Error(`unknown step "${step}"`);
      outcome = await run(context);
    } catch (error) {
      if (error instanceof Superseded) {
        await supersede(deps, operation);
        return;
      }
      deps.log({
        level: 'warn',
        msg: 'step failed',
        step,
        operation_id: operation.id,
        receive_count: receiveCount,
        error: String(error),
      });
      // Keep what the chain achieved, so the retry starts from this step.
      const saved = await saveProgress(deps, operation, pending);
      if (receiveCount >= deps.settings.maxReceiveCount) {
        await fail(deps, composition, saved ?? operation, [
          {
            code: 'step_failed',
            message: `step ${step} failed ${receiveCount} times; last error: ${(error as Error).message}`,
            component: null,
          },
        ]);
      }
      throw error;
    }

    const now = deps.clock.now();
    if (outcome.kind === 'fail') {
      await fail(deps, composition, operation, outcome.blockers, pending);
      return;
    }
    if (outcome.kind === 'wait') {
      const waiting: Operation = {
        ...pending.operation,
        observations: outcome.observations,
        due_at: addSeconds(now, outcome.delaySeconds + redispatchAfterSeconds).toISOString(),
        updated_at: now.toISOString(),
      };
      const events = [...pending.events];
      if (outcome.progress) {
        events.push(
          eventFor(composition, EventType.RolloutProgress, system, operation.id, now, outcome.progress, {}),
        );
      }
      const saved = await saveProgress(deps, operation, { operation: waiting, events });
      if (saved) await enqueueNextStep(deps, saved, outcome.delaySeconds);
      return;
    }

    const nextStep = pending.operation.next_step + 1;
    const last = nextStep >= pending.operation.steps.length;
    const advanced: Operation = {
      ...pending.operation,
      next_step: nextStep,
      status: last ? OperationStatus.Succeeded : pending.operation.status,
      observations: { bad_since: {}, ready: null },
      due_at: last ? null : addSeconds(now, redispatchAfterSeconds).toISOString(),
      updated_at: now.toISOString(),
    };
    const events = [...pending.events, stepEvent(composition, operation, EventType.StepFinished, step, now)];
    if (last) {
      await complete(
        deps,
        composition,
        operation,
        { operation: advanced, events },
        outcome.composition ?? composition,
        now,
      );
      return;
    }
    events.push(
      stepEvent(composition, operation, EventType.StepStarted, advanced.steps[nextStep] as string, now),
    );
    pending = { operation: advanced, events };
    if (Date.now() >= chainEnds) {
      const saved = await saveProgress(deps, operation, pending);
      if (saved) await enqueueNextStep(deps, saved);
      return;
    }
  }
}

/** Writes the chain's operation state and events, conditional on the operation as last written. */
async function saveProgress(
  deps: WorkerDeps,
  written: Operation,
  pending: { operation: Operation; events: CompositionEvent[] },
): Promise<Operation | null> {
  if (pending.operation === written && pending.events.length === 0) return written;
  const record: Operation = { ...pending.operation, lock_version: written.lock_version + 1 };
  const saved = await deps.compositions.commit({
    operation: { record, expected_lock_version: written.lock_version },
    events: pending.events,
  });
  return saved ? record : null;
}

/** pending → running; a create's composition goes created → provisioning. */
async function start(
  deps: WorkerDeps,
  composition: CompositionRecord,
  operation: Operation,
): Promise<{ composition: CompositionRecord; operation: Operation } | null> {
  const now = deps.clock.now();
  const runningOperation: Operation = {
    ...operation,
    status: OperationStatus.Running,
    updated_at: now.toISOString(),
    lock_version: operation.lock_version + 1,
  };
  const runningComposition: CompositionRecord = {
    ...composition,
    phase: composition.phase === Phase.Created ? Phase.Provisioning : composition.phase,
    latest_operation: { ...composition.latest_operation, status: OperationStatus.Running },
    updated_at: now.toISOString(),
    lock_version: composition.lock_version + 1,
  };
  const written = await deps.compositions.commit({
    composition: { record: runningComposition, expected_lock_version: composition.lock_version },
    operation: { record: runningOperation, expected_lock_version: operation.lock_version },
    events: [stepEvent(runningComposition, operation, EventType.StepStarted, operation.steps[0] ?? '', now)],
  });
  return written ? { composition: runningComposition, operation: runningOperation } : null;
}

/** The last step finished: the operation succeeded and the composition takes its final state. */
async function complete(
  deps: WorkerDeps,
  composition: CompositionRecord,
  written: Operation,
  pending: { operation: Operation; events: CompositionEvent[] },
  final: CompositionRecord,
  now: Date,
): Promise<void> {
  const operation = pending.operation;
  const record: CompositionRecord = {
    ...final,
    latest_operation: { ...final.latest_operation, status: OperationStatus.Succeeded },
    active_operation: null,
    updated_at: now.toISOString(),
    lock_version: composition.lock_version + 1,
  };
  const outcome =
    operation.kind === OperationKind.Destroy
      ? eventFor(
          record,
          EventType.Destroyed,
          system,
          operation.id,
          now,
          'everything the composition created is gone',
          {},
        )
      : eventFor(
          record,
          EventType.Ready,
          system,
          operation.id,
          now,
          `generation ${operation.generation} is rolled out`,
          {
            images: Object.fromEntries(Object.entries(record.desired.images).map(([c, i]) => [c, i.image])),
          },
        );
  await deps.compositions.commit({
    composition: { record, expected_lock_version: composition.lock_version },
    operation: {
      record: { ...operation, lock_version: written.lock_version + 1 },
      expected_lock_version: written.lock_version,
    },
    events: [...pending.events, outcome],
  });
}

/** The operation failed: recorded blockers, never left pending; a failed update leaves the previous fork serving. */
export async function fail(
  deps: WorkerDeps,
  composition: CompositionRecord,
  operation: Operation,
  blockers: Blocker[],
  pending?: { operation: Operation; events: CompositionEvent[] },
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = deps.clock.now();
    const current = attempt === 0 ? composition : await deps.compositions.get(composition.id);
    const currentOperation =
      attempt === 0
        ? operation
        : await deps.compositions.getOperation(operation.composition_id, operation.id);
    if (!current || !currentOperation || !unfinished(currentOperation)) return;
    const base = attempt === 0 && pending ? pending.operation : currentOperation;
    const failedOperation: Operation = {
      ...base,
      status: OperationStatus.Failed,
      error: { code: blockers[0]?.code ?? 'failed', message: blockers.map((b) => b.message).join('; ') },
      due_at: null,
      updated_at: now.toISOString(),
      lock_version: currentOperation.lock_version + 1,
    };
    const failedComposition: CompositionRecord | undefined = isCurrent(current, currentOperation)
      ? {
          ...current,
          phase: operation.kind === OperationKind.Destroy ? Phase.Destroying : Phase.Failed,
          observed: { ...current.observed, blockers, updated_at: now.toISOString() },
          public_ready: operation.kind === OperationKind.Update ? current.public_ready : false,
          latest_operation: { ...current.latest_operation, status: OperationStatus.Failed },
          active_operation: null,
          updated_at: now.toISOString(),
          lock_version: current.lock_version + 1,
        }
      : undefined;
    const written = await deps.compositions.commit({
      composition: failedComposition
        ? { record: failedComposition, expected_lock_version: current.lock_version }
        : undefined,
      operation: { record: failedOperation, expected_lock_version: currentOperation.lock_version },
      events: [
        ...(attempt === 0 && pending ? pending.events : []),
        eventFor(
          current,
          EventType.Failed,
          system,
          operation.id,
          now,
          failedOperation.error?.message ?? 'failed',
          { blockers },
        ),
      ],
    });
    if (written) return;
  }
}

async function supersede(deps: WorkerDeps, operation: Operation): Promise<void> {
  const latest = await deps.compositions.getOperation(operation.composition_id, operation.id);
  if (!latest || !unfinished(latest)) return;
  const now = deps.clock.now();
  const composition = await deps.compositions.get(operation.composition_id);
  await deps.compositions.commit({
    operation: {
      record: {
        ...latest,
        status: OperationStatus.Superseded,
        due_at: null,
        updated_at: now.toISOString(),
        lock_version: latest.lock_version + 1,
      },
      expected_lock_version: latest.lock_version,
    },
    events: composition
      ? [
          eventFor(
            composition,
            EventType.Superseded,
            system,
            operation.id,
            now,
            `${operation.kind} superseded by a later operation`,
            {},
          ),
        ]
      : [],
  });
}

function stepEvent(
  composition: CompositionRecord,
  operation: Operation,
  type: typeof EventType.StepStarted | typeof EventType.StepFinished,
  step: string,
  now: Date,
): CompositionEvent {
  return eventFor(
    { id: composition.id, generation: operation.generation },
    type,
    system,
    operation.id,
    now,
    `${operation.kind}: ${step} ${type === EventType.StepStarted ? 'started' : 'finished'}`,
    { step },
  );
}
