/**
 * A failed operation taken up again where it failed, when an operator replays its dead job
 * (replay.ts): the composition goes back to the operation's phase in the same write.
 */
import type { Guarded } from '../operations/fence.ts';
import { guardedWrite } from '../operations/fence.ts';
import { type Operation, OperationKind, OperationStatus, type StepName } from '../operations/model.ts';
import { nextStep, resumed } from '../operations/state.ts';
import { eventFor } from './events.ts';
import { type CompositionEvent, type CompositionRecord, EventType, effectivePhase, Phase } from './model.ts';

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
): { composition: Guarded<CompositionRecord>; operation: Guarded<Operation>; events: CompositionEvent[] } {
  const at = now.toISOString();
  const back = guardedWrite(composition, {
    ...composition,
    phase: resumedPhase[operation.kind],
    active_operation: operation.id,
    latest_operation: { ...composition.latest_operation, status: OperationStatus.Running },
    observed: { ...composition.observed, blockers: [], updated_at: at },
    updated_at: at,
  });
  const step = nextStep(operation) ?? null;
  return {
    composition: back,
    operation: guardedWrite(operation, resumed(operation, now)),
    events: [replayedEvent(back.record, operation, replay, step, now)],
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
