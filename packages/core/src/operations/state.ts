/**
 * The operation's state machine: pending → running → succeeded, failed or superseded, and a failed
 * one running again when its dead job is replayed. Each transition answers the operation as it
 * stands after it; rollout/transitions.ts writes it together with its composition and events.
 */
import { IdPrefix, newId } from '../names.ts';
import { handedOff, leaseUntil, overdueAt } from './lease.ts';
import {
  noObservations,
  type Operation,
  type OperationKind,
  OperationStatus,
  type Owner,
  operationSteps,
  type StepName,
} from './model.ts';

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
    due_at: overdueAt(now),
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

/** pending → running, leased to the chain that starts it (`holder`). */
export function started(operation: Operation, now: Date, holder: string): Operation {
  return {
    ...operation,
    status: OperationStatus.Running,
    due_at: leaseUntil(now),
    lease_holder: holder,
    updated_at: now.toISOString(),
  };
}

/**
 * Its next step is done: on to the step after it, still leased and forgetting what the done one
 * observed, or succeeded when it was the last.
 */
export function stepped(operation: Operation, now: Date): { operation: Operation; next: StepName | null } {
  const index = operation.next_step + 1;
  const next = operation.steps[index] ?? null;
  return {
    operation: {
      ...operation,
      next_step: index,
      status: next ? operation.status : OperationStatus.Succeeded,
      observations: noObservations(),
      due_at: next ? leaseUntil(now) : null,
      lease_holder: next ? (operation.lease_holder ?? null) : null,
      updated_at: now.toISOString(),
    },
    next,
  };
}

/** It ended as `status` (failed, with its error, or superseded): nothing due, no lease. */
export function ended(
  operation: Operation,
  status: typeof OperationStatus.Failed | typeof OperationStatus.Superseded,
  now: Date,
  error: Operation['error'] = operation.error,
): Operation {
  return { ...operation, status, error, due_at: null, lease_holder: null, updated_at: now.toISOString() };
}

/** A failed operation running again where it failed: no lease, due once its message had its pickup allowance. */
export function resumed(operation: Operation, now: Date): Operation {
  return { ...handedOff(operation, now), status: OperationStatus.Running, error: null };
}
