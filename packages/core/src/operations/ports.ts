import type { Operation } from './model.ts';

/** The operations of compositions: read, leased and taken over (written with their composition by its store). */
export interface OperationStore {
  getOperation(compositionId: string, operationId: string): Promise<Operation | null>;
  /**
   * The redispatch sweep takes over an unfinished operation whose `due_at` passed: `due_at` moves
   * from the value read to `dueAt`, the lease goes and `lock_version` moves on, so a chain that let
   * its lease lapse but still runs has its next write refused. False when the operation was written
   * or renewed meanwhile (its `due_at` changed) or has finished.
   */
  takeOver(operation: Pick<Operation, 'composition_id' | 'id' | 'due_at'>, dueAt: string): Promise<boolean>;
  /**
   * A chain that picked up a running operation takes its lease: conditional on the `lock_version`
   * read and on no other lease that has not lapsed at `now`; `lock_version` moves on. The operation
   * as written, or null when another chain holds it or it changed.
   */
  takeLease(
    operation: Operation,
    lease: { holder: string; until: string; now: Date },
  ): Promise<Operation | null>;
  /**
   * Gives up the lease `holder` holds, the operation due at `dueAt` (`lock_version` stays): a chain
   * whose own write failed lets the queue's retry run at once. False when it no longer held it.
   */
  releaseLease(
    operation: Pick<Operation, 'composition_id' | 'id'>,
    lease: { holder: string; dueAt: string },
  ): Promise<boolean>;
  /**
   * Moves the lease `holder` holds to `until`, and nothing else (`lock_version` stays, so the
   * holder's own writes are not refused). False when the holder no longer holds it.
   */
  renewLease(
    operation: Pick<Operation, 'composition_id' | 'id'>,
    lease: { holder: string; until: string },
  ): Promise<boolean>;
  /** Unfinished operations whose `due_at` has passed, oldest first. */
  dueOperations(now: Date, limit: number): Promise<Operation[]>;
}
