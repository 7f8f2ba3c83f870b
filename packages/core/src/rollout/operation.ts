/**
 * The operation state machine as pure transitions: start, advance, wait, complete, fail, supersede,
 * resume. Each answers the write that records it; the worker reads, calls one and commits the
 * answer (`CompositionStore.commit`).
 */
import { addSeconds } from '../clock.ts';
import { eventFor } from '../compositions/events.ts';
import {
  type Blocker,
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  effectivePhase,
  noObservations,
  type Operation,
  OperationKind,
  OperationStatus,
  type Owner,
  operationSteps,
  Phase,
  type StepName,
} from '../compositions/model.ts';
import { IdPrefix, newId } from '../names.ts';
import {
  type Chain,
  guardedWrite,
  handedOff,
  leaseUntil,
  type OperationWrite,
  redispatchAfterSeconds,
  type StepDone,
  type StepWait,
} from './chain.ts';

const worker = { kind: 'system', subject: 'worker' } as const;

export function newOperation(
  compositionId: string,
  kind: OperationKind,
  generation: number,
  epoch: number,
  owner: Owner,
  now: Date,
): Operation {
  const at = now.toISOString();
  return {
    id: newId(IdPrefix.Operation),
    composition_id: compositionId,
    kind,
    status: OperationStatus.Pending,
    generation,
    epoch,
    steps: [...operationSteps[kind]],
    next_step: 0,
    due_at: addSeconds(now, redispatchAfterSeconds).toISOString(),
    lease_holder: null,
    created_at: at,
    updated_at: at,
    error: null,
    requested_by: owner,
    observations: noObservations(),
    lock_version: 1,
  };
}

/** The step the operation runs next; undefined once its last step is done. */
export function nextStep(operation: Operation): StepName | undefined {
  return operation.steps[operation.next_step];
}

export function isUnfinished(operation: Operation): boolean {
  return operation.status === OperationStatus.Pending || operation.status === OperationStatus.Running;
}

/** Fencing: only the composition's active operation of its current epoch may act. */
export function isCurrentOperation(composition: CompositionRecord, operation: Operation): boolean {
  return composition.epoch === operation.epoch && composition.active_operation === operation.id;
}

function stepEvent(
  composition: Pick<CompositionRecord, 'id'>,
  operation: Operation,
  type: typeof EventType.StepStarted | typeof EventType.StepFinished,
  step: StepName,
  now: Date,
): CompositionEvent {
  return eventFor(
    { id: composition.id, generation: operation.generation },
    type,
    worker,
    operation.id,
    now,
    `${operation.kind}: ${step} ${type === EventType.StepStarted ? 'started' : 'finished'}`,
    { step },
  );
}

/**
 * pending → running; a create's composition goes created → provisioning. The chain that starts now
 * (`holder`) takes the operation's lease in the same write.
 */
export function startOperation(
  composition: CompositionRecord,
  operation: Operation,
  now: Date,
  holder: string,
): Required<Omit<OperationWrite, 'checks'>> {
  const at = now.toISOString();
  const running = guardedWrite(composition, {
    ...composition,
    phase: composition.phase === Phase.Created ? Phase.Provisioning : composition.phase,
    latest_operation: { ...composition.latest_operation, status: OperationStatus.Running },
    updated_at: at,
  });
  const first = operation.steps[0];
  return {
    composition: running,
    operation: guardedWrite(operation, {
      ...operation,
      status: OperationStatus.Running,
      due_at: leaseUntil(now),
      lease_holder: holder,
      updated_at: at,
    }),
    events: first ? [stepEvent(running.record, operation, EventType.StepStarted, first, now)] : [],
  };
}

/** `step` finished: the chain moves on to the next step, or the operation succeeded when it was the last. */
export function advanceOperation(
  chain: Chain,
  composition: Pick<CompositionRecord, 'id'>,
  step: StepName,
  now: Date,
  done: Omit<StepDone, 'kind' | 'composition'> = {},
): { chain: Chain; next: StepName | null } {
  const { check, leftovers = [] } = done;
  const index = chain.operation.next_step + 1;
  const next = chain.operation.steps[index] ?? null;
  const operation: Operation = {
    ...chain.operation,
    next_step: index,
    status: next ? chain.operation.status : OperationStatus.Succeeded,
    observations: noObservations(),
    due_at: next ? leaseUntil(now) : null,
    lease_holder: next ? (chain.operation.lease_holder ?? null) : null,
    updated_at: now.toISOString(),
  };
  const events = [...chain.events, stepEvent(composition, operation, EventType.StepFinished, step, now)];
  if (leftovers.length > 0) {
    const message = `${step} left something behind: ${leftovers.map((b) => b.message).join('; ')}`;
    events.push(
      eventFor(
        { id: composition.id, generation: operation.generation },
        EventType.CleanupIncomplete,
        worker,
        operation.id,
        now,
        message,
        { step, blockers: leftovers },
      ),
    );
  }
  if (next) events.push(stepEvent(composition, operation, EventType.StepStarted, next, now));
  const checks = check ? [...chain.checks, check] : chain.checks;
  return { chain: { ...chain, operation, events, checks }, next };
}

/**
 * The step waits: what it saw is kept (and whether its cluster answered), the chain gives up its
 * lease, and the operation is due again once the delayed message has had its pickup allowance.
 * Always a write: the lease must go.
 */
export function waitOperation(
  chain: Chain,
  composition: Pick<CompositionRecord, 'id' | 'generation'>,
  wait: StepWait,
  now: Date,
): Chain {
  const { cluster_unavailable: _answered, ...observations } = wait.observations;
  const operation: Operation = {
    ...handedOff(chain.operation, now, wait.delaySeconds),
    observations: wait.unavailable
      ? { ...observations, cluster_unavailable: wait.unavailable }
      : observations,
  };
  const progress = wait.progress
    ? [eventFor(composition, EventType.RolloutProgress, worker, operation.id, now, wait.progress, {})]
    : [];
  return { ...chain, operation, events: [...chain.events, ...progress] };
}

/** After the last step: the operation succeeded and the composition takes its final state, nothing active. */
export function completeOperation(
  composition: CompositionRecord,
  chain: Chain,
  final: CompositionRecord,
  now: Date,
): OperationWrite {
  const done = guardedWrite(composition, {
    ...final,
    latest_operation: { ...final.latest_operation, status: OperationStatus.Succeeded },
    active_operation: null,
    updated_at: now.toISOString(),
  });
  const { record } = done;
  const { operation } = chain;
  const outcome =
    operation.kind === OperationKind.Destroy
      ? eventFor(
          record,
          EventType.Destroyed,
          worker,
          operation.id,
          now,
          'everything the composition created is gone',
          {},
        )
      : eventFor(
          record,
          EventType.Ready,
          worker,
          operation.id,
          now,
          `generation ${operation.generation} is rolled out`,
          {
            images: Object.fromEntries(Object.entries(record.desired.images).map(([c, i]) => [c, i.image])),
          },
        );
  return {
    composition: done,
    operation: guardedWrite(chain.written, operation),
    events: [...chain.events, outcome],
    checks: chain.checks,
  };
}

/**
 * The operation failed with `blockers`; it is never left pending. The composition records them if
 * this is still its operation: a failed destroy stays destroying, a failed update keeps the previous
 * generation serving (its public readiness is unchanged), anything else fails.
 */
export function failOperation(
  composition: CompositionRecord,
  chain: Chain,
  blockers: Blocker[],
  now: Date,
): OperationWrite {
  const at = now.toISOString();
  const { written } = chain;
  const error = { code: blockers[0]?.code ?? 'failed', message: blockers.map((b) => b.message).join('; ') };
  const failed = guardedWrite(written, {
    ...chain.operation,
    status: OperationStatus.Failed,
    error,
    due_at: null,
    lease_holder: null,
    updated_at: at,
  });
  const record = isCurrentOperation(composition, written)
    ? guardedWrite(composition, {
        ...composition,
        phase: written.kind === OperationKind.Destroy ? Phase.Destroying : Phase.Failed,
        observed: { ...composition.observed, blockers, updated_at: at },
        public_ready: written.kind === OperationKind.Update ? composition.public_ready : false,
        latest_operation: { ...composition.latest_operation, status: OperationStatus.Failed },
        active_operation: null,
        updated_at: at,
      })
    : undefined;
  return {
    ...(record ? { composition: record } : {}),
    operation: failed,
    events: [
      ...chain.events,
      eventFor(composition, EventType.Failed, worker, written.id, now, error.message, { blockers }),
    ],
    checks: chain.checks,
  };
}

/** A later operation took over: this one stops as superseded. */
export function supersedeOperation(
  operation: Operation,
  composition: CompositionRecord | null,
  now: Date,
): OperationWrite {
  const superseded = guardedWrite(operation, {
    ...operation,
    status: OperationStatus.Superseded,
    due_at: null,
    lease_holder: null,
    updated_at: now.toISOString(),
  });
  const message = `${operation.kind} superseded by a later operation`;
  return {
    operation: superseded,
    events: composition
      ? [eventFor(composition, EventType.Superseded, worker, operation.id, now, message, {})]
      : [],
  };
}

/**
 * Why a failed operation cannot be taken up again where it failed, or null when it can: it is still
 * its composition's latest operation, nothing newer started, and the composition is neither
 * destroyed nor (for a create or an update) expired.
 */
export function notResumable(composition: CompositionRecord, operation: Operation, now: Date): string | null {
  if (operation.status !== OperationStatus.Failed) return `operation ${operation.id} is ${operation.status}`;
  if (composition.latest_operation.id !== operation.id || composition.active_operation !== null) {
    return `a later operation (${composition.latest_operation.id}) took over`;
  }
  const phase = effectivePhase(composition, now);
  if (phase === Phase.Destroyed) return 'the composition is destroyed';
  if (phase === Phase.Expired && operation.kind !== OperationKind.Destroy) return 'the composition expired';
  return null;
}

const resumedPhase: Record<OperationKind, CompositionRecord['phase']> = {
  create: Phase.Provisioning,
  update: Phase.Updating,
  destroy: Phase.Destroying,
};

/**
 * A failed operation taken up again at the step that failed (its dead job replayed): running, no
 * lease, due once its message had its pickup allowance; the composition back in the operation's
 * phase with its blockers cleared, and a `replayed` event with the operator's reason.
 */
export function resumeOperation(
  composition: CompositionRecord,
  operation: Operation,
  replay: { actor: CompositionEvent['actor']; reason: string; message_id: string },
  now: Date,
): Required<Omit<OperationWrite, 'checks'>> {
  const at = now.toISOString();
  const resumed = guardedWrite(composition, {
    ...composition,
    phase: resumedPhase[operation.kind],
    active_operation: operation.id,
    latest_operation: { ...composition.latest_operation, status: OperationStatus.Running },
    observed: { ...composition.observed, blockers: [], updated_at: at },
    updated_at: at,
  });
  const step = nextStep(operation) ?? null;
  return {
    composition: resumed,
    operation: guardedWrite(operation, {
      ...handedOff(operation, now),
      status: OperationStatus.Running,
      error: null,
    }),
    events: [replayedEvent(resumed.record, operation, replay, step, now)],
  };
}

/** The audit record of a replay: who, why, which message and step. */
export function replayedEvent(
  composition: Pick<CompositionRecord, 'id' | 'generation'>,
  operation: Pick<Operation, 'id' | 'kind'>,
  replay: { actor: CompositionEvent['actor']; reason: string; message_id: string },
  step: StepName | null,
  now: Date,
): CompositionEvent {
  return eventFor(
    composition,
    EventType.Replayed,
    replay.actor,
    operation.id,
    now,
    `${operation.kind}${step ? ` from ${step}` : ''} replayed from the dead-letter queue: ${replay.reason}`,
    { reason: replay.reason, message_id: replay.message_id, step },
  );
}
