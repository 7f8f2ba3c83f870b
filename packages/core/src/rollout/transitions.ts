/**
 * An operation's transitions as the worker makes them, with its composition and events: start,
 * advance, wait, complete, fail, supersede (the operation's own states are operations/state.ts).
 * Each answers the write that records it; the worker reads, calls one and commits the answer
 * (`RolloutStore.commit`).
 */
import { eventFor } from '../compositions/events.ts';
import {
  type Blocker,
  type CompositionEvent,
  type CompositionRecord,
  EventType,
  Phase,
} from '../compositions/model.ts';
import { guardedWrite, isCurrentOperation } from '../operations/fence.ts';
import { handedOff } from '../operations/lease.ts';
import { type Operation, OperationKind, OperationStatus, type StepName } from '../operations/model.ts';
import { ended, started, stepped } from '../operations/state.ts';
import type { Chain, OperationWrite, StepDone, StepWait } from './chain.ts';

const worker = { kind: 'system', subject: 'worker' } as const;

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
    operation: guardedWrite(operation, started(operation, now, holder)),
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
  const { operation, next } = stepped(chain.operation, now);
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
  const failed = guardedWrite(written, ended(chain.operation, OperationStatus.Failed, now, error));
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
  const superseded = guardedWrite(operation, ended(operation, OperationStatus.Superseded, now));
  const message = `${operation.kind} superseded by a later operation`;
  return {
    operation: superseded,
    events: composition
      ? [eventFor(composition, EventType.Superseded, worker, operation.id, now, message, {})]
      : [],
  };
}
