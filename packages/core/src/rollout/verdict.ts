/**
 * The rollout's verdicts: its blockers (codes listed in docs/orchestration.md), whether it waits,
 * finished or failed, and the composition a finished rollout or destroy leaves.
 */

import { type CheckRecord, CheckStatus } from '../checks/model.ts';
import type { Deployment, Pod } from '../cluster/objects.ts';
import { type CompositionRecord, type MessageSubscriptionState, Phase } from '../compositions/model.ts';
import type { Observations, Operation } from '../operations/model.ts';
import type { StepFailure, StepWait } from './chain.ts';
import { failureGrace, forkRolledOut, unhealthyFork } from './health.ts';
import { type ForkTarget, forkOf } from './target.ts';

/**
 * Not rolled out yet: fail a fork past its failure grace, or wait, noting progress when it changed.
 * The next look comes `recheckDelaySeconds` later, or just after an unhealthy fork's grace ends if
 * that is sooner. A pod's own time counts from `operationStart` at the earliest: a rollout gets its
 * grace whatever an older pod says (or a clock a little ahead of ours).
 */
export function rolloutWait(input: {
  forks: readonly ForkTarget[];
  deployments: readonly Deployment[];
  pods: readonly Pod[];
  observations: Observations;
  now: Date;
  failureGraceMs: number;
  recheckDelaySeconds: number;
  operationStart: string;
}): StepWait | StepFailure {
  const { forks, deployments, observations } = input;
  const start = Date.parse(input.operationStart);
  const unhealthy = forks.flatMap(({ component, image, profile }) => {
    const found = unhealthyFork(input.pods, { component, image, container: profile.workload.container });
    if (!found) return [];
    const since =
      found.since !== undefined && Date.parse(found.since) < start ? input.operationStart : found.since;
    return [{ component, image, reason: found.reason, since }];
  });
  const grace = failureGrace(unhealthy, observations.bad_since, input.now, input.failureGraceMs);
  if (grace.kind === 'fail') return grace;
  const graceLeftSeconds = Object.values(grace.bad_since).map((bad) =>
    Math.ceil((input.failureGraceMs - (input.now.getTime() - Date.parse(bad.since))) / 1000),
  );
  const ready = forks.filter((fork) => forkRolledOut(deployments, fork)).length;
  const progress = ready !== observations.ready ? `${ready} of ${forks.length} forks rolled out` : undefined;
  return {
    kind: 'wait',
    delaySeconds: Math.max(1, Math.min(input.recheckDelaySeconds, ...graceLeftSeconds)),
    observations: { bad_since: grace.bad_since, ready },
    ...(progress ? { progress } : {}),
  };
}

/**
 * A create or update is ready with what is observed now. The preview is publicly ready unless this
 * generation's latest check failed.
 */
export function rolloutFinished(input: {
  composition: CompositionRecord;
  operation: Pick<Operation, 'generation'>;
  forks: readonly Deployment[];
  latestCheck: CheckRecord | undefined;
  subscriptions: MessageSubscriptionState[];
  now: Date;
}): CompositionRecord {
  const { composition, operation, latestCheck } = input;
  const components = Object.fromEntries(
    Object.entries(composition.desired.images).map(([component, { image }]) => {
      const fork = forkOf(input.forks, component);
      const replicas = fork?.spec.replicas ?? 1;
      const ready = (fork?.status?.availableReplicas ?? 0) >= replicas;
      return [component, { image, ready, generation: operation.generation }];
    }),
  );
  return {
    ...composition,
    phase: Phase.Ready,
    observed_generation: operation.generation,
    observed: { components, blockers: [], updated_at: input.now.toISOString() },
    public_ready:
      latestCheck?.generation === operation.generation ? latestCheck.status !== CheckStatus.Failed : true,
    message_subscriptions: composition.message_isolation ? input.subscriptions : null,
  };
}

/** A destroy ends with nothing observed and nothing served. */
export function destroyFinished(composition: CompositionRecord, now: Date): CompositionRecord {
  const at = now.toISOString();
  return {
    ...composition,
    phase: Phase.Destroyed,
    destroyed_at: at,
    public_ready: false,
    observed: { components: {}, blockers: [], updated_at: at },
  };
}
