/**
 * The lease a chain of steps holds on its operation while it works, and when an operation handed
 * to the queue is due again: a dropped step is taken over by the redispatch sweep.
 */
import { addSeconds } from '../clock.ts';
import type { Operation } from './model.ts';

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
