/**
 * A chain of steps as the worker runs it: what a step answers, and the one guarded write that
 * records the chain's progress (the lease it holds and the fence are the operation's: operations/).
 */

import type { CheckRecord } from '../checks/model.ts';
import type { Blocker, CompositionEvent, CompositionRecord } from '../compositions/model.ts';
import { type Guarded, guardedWrite } from '../operations/fence.ts';
import { handedOff } from '../operations/lease.ts';
import type { ClusterUnavailable, Observations, Operation } from '../operations/model.ts';

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
