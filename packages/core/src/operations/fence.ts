/**
 * Fencing: every write of a composition or an operation is conditional on the `lock_version` read,
 * and only the active operation of the composition's current epoch may act.
 */
import type { Operation } from './model.ts';

/** A record to write, conditional on the `lock_version` it was derived from. */
export interface Guarded<T> {
  record: T;
  expected_lock_version: number;
}

/** `next` written over `read`: conditional on the version read, and one version past it. */
export function guardedWrite<T extends { lock_version: number }>(
  read: { lock_version: number },
  next: T,
): Guarded<T> {
  return {
    record: { ...next, lock_version: read.lock_version + 1 },
    expected_lock_version: read.lock_version,
  };
}

/** What a composition says of its operations: which one is active, and the epoch every new one bumps. */
interface Fenced {
  epoch: number;
  active_operation: string | null;
}

/** Fencing: only the composition's active operation of its current epoch may act. */
export function isCurrentOperation(composition: Fenced, operation: Pick<Operation, 'epoch' | 'id'>): boolean {
  return composition.epoch === operation.epoch && composition.active_operation === operation.id;
}
