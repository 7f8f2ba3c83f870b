/**
 * Runs one step of one operation. A message only names the step: the operation record decides.
 * A duplicate, late or superseded message finds its step done or its operation no longer current
 * and does nothing, so delivery can be at least once.
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
  await runStep(deps, job, receiveCount);
}

function isCurrent(composition: CompositionRecord, operation: Operation): boolean {
  return composition.epoch === operation.epoch && composition.active_operation === operation.id;
}

const unfinished = (operation: Operation) =>
  operation.status === OperationStatus.Pending || operation.status === OperationStatus.Running;

async function runStep(deps: WorkerDeps, job: Jobs.Job, receiveCount: number): Promise<void> {
  const { compositions } = deps;
  let operation = await compositions.getOperation(job.composition_id, job.operation_id);
  if (!operation || !unfinished(operation) || operation.steps[operation.next_step] !== job.step) return;
  let composition = await compositions.get(operation.composition_id);
  if (!composition) return;
  if (!isCurrent(composition, operation)) {
    await supersede(deps, operation);
    return;
  }
  if (operation.status === OperationStatus.Pending) {
    const started = await start(deps, composition, operation);
    if (!started) return;
    ({ composition, operation } = started);
  }

  const context: StepContext = {
    deps,
    composition,
    operation,
    async fence() {
      const latest = await compositions.get(job.composition_id);
      if (!latest || !isCurrent(latest, operation as Operation)) throw new Superseded();
      return latest;
    },
  };
  let outcome: StepOutcome;
  try {
    const step = steps[job.step];
    if (!step) throw new Error(`unknown step "${job.step}"`);
    outcome = await step(context);
  } catch (error) {
    if (error instanceof Superseded) {
      await supersede(deps, operation);
      return;
    }
    deps.log({
      level: 'warn',
      msg: 'step failed',
      step: job.step,
      operation_id: operation.id,
      receive_count: receiveCount,
      error: String(error),
    });
    if (receiveCount >= deps.settings.maxReceiveCount) {
      await fail(deps, composition, operation, [
        {
          code: 'step_failed',
          message: `step ${job.step} failed ${receiveCount} times; last error: ${(error as Error).message}`,
          component: null,
        },
      ]);
    }
    throw error;
  }
  await settle(deps, composition, operation, job.step, outcome);
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

async function settle(
  deps: WorkerDeps,
  composition: CompositionRecord,
  operation: Operation,
  step: string,
  outcome: StepOutcome,
): Promise<void> {
  const now = deps.clock.now();
  if (outcome.kind === 'fail') {
    await fail(deps, composition, operation, outcome.blockers);
    return;
  }
  if (outcome.kind === 'wait') {
    const waiting: Operation = {
      ...operation,
      observations: outcome.observations,
      due_at: addSeconds(now, outcome.delaySeconds + redispatchAfterSeconds).toISOString(),
      updated_at: now.toISOString(),
      lock_version: operation.lock_version + 1,
    };
    const events = outcome.progress
      ? [eventFor(composition, EventType.RolloutProgress, system, operation.id, now, outcome.progress, {})]
      : [];
    if (
      await deps.compositions.commit({
        operation: { record: waiting, expected_lock_version: operation.lock_version },
        events,
      })
    ) {
      await enqueueNextStep(deps, waiting, outcome.delaySeconds);
    }
    return;
  }
  const nextStep = operation.next_step + 1;
  const last = nextStep >= operation.steps.length;
  const advanced: Operation = {
    ...operation,
    next_step: nextStep,
    status: last ? OperationStatus.Succeeded : operation.status,
    observations: { bad_since: {}, ready: null },
    due_at: last ? null : addSeconds(now, redispatchAfterSeconds).toISOString(),
    updated_at: now.toISOString(),
    lock_version: operation.lock_version + 1,
  };
  const events: CompositionEvent[] = [stepEvent(composition, operation, EventType.StepFinished, step, now)];
  let finalComposition: { record: CompositionRecord; expected_lock_version: number } | undefined;
  if (last) {
    const record = outcome.composition ?? composition;
    finalComposition = {
      record: {
        ...record,
        latest_operation: { ...record.latest_operation, status: OperationStatus.Succeeded },
        active_operation: null,
        updated_at: now.toISOString(),
        lock_version: composition.lock_version + 1,
      },
      expected_lock_version: composition.lock_version,
    };
    events.push(
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
          ),
    );
  } else {
    events.push(
      stepEvent(composition, operation, EventType.StepStarted, operation.steps[nextStep] ?? '', now),
    );
  }
  const written = await deps.compositions.commit({
    composition: finalComposition,
    operation: { record: advanced, expected_lock_version: operation.lock_version },
    events,
  });
  if (written && !last) await enqueueNextStep(deps, advanced);
}

/** The operation failed: recorded blockers, never left pending; a failed update leaves the previous fork serving. */
export async function fail(
  deps: WorkerDeps,
  composition: CompositionRecord,
  operation: Operation,
  blockers: Blocker[],
): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = deps.clock.now();
    const current = attempt === 0 ? composition : await deps.compositions.get(composition.id);
    const currentOperation =
      attempt === 0
        ? operation
        : await deps.compositions.getOperation(operation.composition_id, operation.id);
    if (!current || !currentOperation || !unfinished(currentOperation)) return;
    const failedOperation: Operation = {
      ...currentOperation,
      status: OperationStatus.Failed,
      error: { code: blockers[0]?.code ?? 'failed', message: blockers.map((b) => b.message).join('; ') },
      due_at: null,
      updated_at: now.toISOString(),
      lock_version: currentOperation.lock_version + 1,
    };
    const stillCurrent = isCurrent(current, currentOperation);
    const failedComposition: CompositionRecord | undefined = stillCurrent
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
  if (!unfinished(operation)) return;
  const now = deps.clock.now();
  const composition = await deps.compositions.get(operation.composition_id);
  await deps.compositions.commit({
    operation: {
      record: {
        ...operation,
        status: OperationStatus.Superseded,
        due_at: null,
        updated_at: now.toISOString(),
        lock_version: operation.lock_version + 1,
      },
      expected_lock_version: operation.lock_version,
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
