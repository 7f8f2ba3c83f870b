/**
 * A chain of steps as the worker runs it: the lease it holds while it works, when a dropped step is
 * due again, what a step answers, and the one guarded write that records progress (bumping
 * `lock_version`).
 */
import { addSeconds } from '../clock.ts';
import type {
  Blocker,
  ClusterUnavailable,
  CompositionEvent,
  CompositionRecord,
  Observations,
  Operation,
} from '../compositions/model.ts';
import type { CheckRecord } from '../verification/model.ts';

/**
 * An operation whose next step was not picked up this long after it was due is re-enqueued: what a
 * send lost between the write and the send (a crash) costs. Short, because a duplicate is cheap
 * since chains hold leases: whoever picks a message up second finds the lease held or the step done
 * and drops it after two reads.
 */
export const redispatchAfterSeconds = 15;

/**
 * How long a chain's lease on its operation lasts unless renewed. A live chain renews it every third
 * of that while it works, so only a chain that died (or froze) lets it lapse, and the redispatch
 * sweep takes the operation over seconds after a crash instead of after a whole invocation.
 */
export const leaseSeconds = 10;

/** The end of a lease taken or renewed now. */
export const leaseUntil = (now: Date): string => addSeconds(now, leaseSeconds).toISOString();

/**
 * When an operation handed to the queue now (its next message sent after `delaySeconds`) is overdue:
 * the message must be picked up within `redispatchAfterSeconds`. Whoever picks it up takes the
 * lease, so the allowance covers only the time in the queue.
 */
export function overdueAt(now: Date, delaySeconds = 0): string {
  return addSeconds(now, delaySeconds + redispatchAfterSeconds).toISOString();
}

/** The operation handed to the queue: no chain holds it, and its next message is due. */
export function handedOff(operation: Operation, now: Date, delaySeconds = 0): Operation {
  return {
    ...operation,
    lease_holder: null,
    due_at: overdueAt(now, delaySeconds),
    updated_at: now.toISOString(),
  };
}

/** Whether a chain other than `holder` holds a lease on the operation that has not lapsed at `now`. */
export function leasedByAnother(operation: Operation, holder: string, now: Date): boolean {
  return (
    !!operation.lease_holder &&
    operation.lease_holder !== holder &&
    operation.due_at !== null &&
    Date.parse(operation.due_at) > now.getTime()
  );
}

/**
 * The chain stops and hands the operation to the queue, keeping what it achieved: its budget ran
 * out (its next step is sent at once), or a step threw (the queue retries the message).
 */
export function handOff(chain: Chain, now: Date): Chain {
  return { ...chain, operation: handedOff(chain.operation, now) };
}

/**
 * What a step answers: done (with the composition's final state after the last step, the check it
 * ran and what it had to leave behind, written with the chain's next write), wait, or fail.
 */
export type StepOutcome = StepDone | StepWait | StepFailure;
export interface StepDone {
  kind: 'done';
  composition?: CompositionRecord;
  check?: CheckRecord;
  /** What the step could not remove and went on without (a `cleanup_incomplete` event). */
  leftovers?: Blocker[];
}
export interface StepWait {
  kind: 'wait';
  delaySeconds: number;
  observations: Observations;
  progress?: string;
  /** The step waits for its cluster to answer again (rollout/clusters.ts); absent, it answered. */
  unavailable?: ClusterUnavailable;
}
export interface StepFailure {
  kind: 'fail';
  blockers: Blocker[];
}

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

/** One all-or-nothing write of the worker (`CompositionStore.commit`). */
export interface OperationWrite {
  composition?: Guarded<CompositionRecord>;
  operation?: Guarded<Operation>;
  events: CompositionEvent[];
  checks?: CheckRecord[];
}

/**
 * What a chain of steps did since its last write: the operation as last written, the operation as
 * it now stands, and the events and checks since. A check goes into the same write as the step
 * that ran it: a chain that stops before writing runs that step again, check and all.
 */
export interface Chain {
  written: Operation;
  operation: Operation;
  events: CompositionEvent[];
  checks: CheckRecord[];
}

export const chainFrom = (operation: Operation): Chain => ({
  written: operation,
  operation,
  events: [],
  checks: [],
});

/** The write that records a chain's progress; null when it changed nothing. */
export function chainWrite(chain: Chain): (OperationWrite & { operation: Guarded<Operation> }) | null {
  if (chain.operation === chain.written && chain.events.length === 0 && chain.checks.length === 0)
    return null;
  return {
    operation: guardedWrite(chain.written, chain.operation),
    events: chain.events,
    checks: chain.checks,
  };
}
