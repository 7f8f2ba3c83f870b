/**
 * A rollout on one cluster among several: what a step does when its composition's cluster is not
 * one the stage knows (any more), or does not answer. Either way only that cluster's compositions
 * are held up; the others' steps never ask it anything.
 */
import type { CompositionRecord } from '../compositions/model.ts';
import { Dependency, DependencyUnavailableError } from '../errors.ts';
import type { Operation, StepName } from '../operations/model.ts';
import { OperationKind, StepName as Steps } from '../operations/model.ts';
import { RolloutBlockerCode, rolloutBlocker, rolloutFailure } from './blockers.ts';
import type { StepDone, StepFailure, StepWait } from './chain.ts';

/** Whether the step asks the composition's cluster anything (a destroy's last steps do not). */
export function needsCluster(kind: OperationKind, step: StepName): boolean {
  if (step === Steps.ReleaseMessaging) return false;
  return !(step === Steps.Finish && kind === OperationKind.Destroy);
}

/**
 * The step's answer when the composition's cluster is not one the stage knows: a create or an
 * update fails, naming it; a destroy goes on, recording that what it made there may be left
 * (teardown never waits on what it cannot reach), once, at its delete step.
 */
export function unknownClusterOutcome(
  composition: Pick<CompositionRecord, 'id' | 'namespace'>,
  operation: Pick<Operation, 'kind'>,
  step: StepName,
  reason: string,
): StepDone | StepFailure {
  if (operation.kind !== OperationKind.Destroy) {
    return rolloutFailure(RolloutBlockerCode.UnknownCluster, `${reason}: the rollout cannot reach it`);
  }
  if (step !== Steps.Delete) return { kind: 'done' };
  const message = `what composition ${composition.id} made in namespace ${composition.namespace} may be left: ${reason}`;
  return { kind: 'done', leftovers: [rolloutBlocker(RolloutBlockerCode.UnknownCluster, message)] };
}

/** Whether a step's error is its cluster not answering (unreachable, throttling, failing), as the adapter classified it. */
export function isClusterUnavailable(error: unknown): error is DependencyUnavailableError {
  return error instanceof DependencyUnavailableError && error.dependency === Dependency.Cluster;
}

/**
 * The step waits for its cluster instead of failing: the operation keeps its place and is looked at
 * again after `delaySeconds`, however long the cluster stays away (a destroy or the expiry sweep's
 * destroy supersedes it). The first wait says so in the composition's events; the operation's
 * observations keep since when and why, which the diagnosis reports as a blocker.
 */
export function clusterUnavailableWait(input: {
  operation: Pick<Operation, 'kind' | 'observations'>;
  cluster: string;
  cause: string;
  now: Date;
  delaySeconds: number;
}): StepWait {
  const { operation, cluster, cause } = input;
  const before = operation.observations.cluster_unavailable;
  const since = before?.cluster === cluster ? before.since : input.now.toISOString();
  return {
    kind: 'wait',
    delaySeconds: input.delaySeconds,
    observations: operation.observations,
    unavailable: { cluster, cause, since },
    ...(before ? {} : { progress: clusterUnavailableMessage({ cluster, cause, since }, operation.kind) }),
  };
}

/** `cluster "x" is unavailable since …: <cause>; the create waits for it`. */
export function clusterUnavailableMessage(
  unavailable: { cluster: string; cause: string; since: string },
  kind: OperationKind,
): string {
  return `cluster "${unavailable.cluster}" is unavailable since ${unavailable.since} (${unavailable.cause}); the ${kind} waits for it`;
}
