/**
 * How healthy a rollout is, from what the cluster shows: a fork rolled out, one that gave up, pods
 * that cannot start, and the failure grace before that fails the rollout.
 */
import { condition, type Deployment, Label, type Pod } from '../cluster/objects.ts';
import type { Observations } from '../operations/model.ts';
import { RolloutBlockerCode, rolloutFailure } from './blockers.ts';
import type { StepFailure } from './chain.ts';
import { type ForkTarget, forkOf } from './target.ts';

/**
 * How long a fork may stay in ErrImagePull/ImagePullBackOff/CrashLoopBackOff before its rollout
 * fails: a third less than the default wait (`Compositions.waitLimits`), so that a failing image ends a default
 * `svc composition wait` as "failed", with its blocker, not as "timed out" by chance (the failure
 * is recorded at most a recheck after the grace ends). Long enough for a few pull retries.
 */
export const defaultFailureGraceMs = 20_000;
/**
 * Rolled out: the Deployment's controller saw its latest spec, the container runs `image`, every
 * replica is updated and available, and the rollout is not still progressing to a new ReplicaSet.
 */
export function rolledOut(deployment: Deployment | undefined, image: string, container: string): boolean {
  if (!deployment?.status) return false;
  const { spec, status } = deployment;
  const replicas = spec.replicas ?? 1;
  if ((status.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)) return false;
  if (spec.template.spec.containers.find((c) => c.name === container)?.image !== image) return false;
  if (
    status.updatedReplicas !== replicas ||
    status.availableReplicas !== replicas ||
    status.replicas !== replicas
  )
    return false;
  const progressing = condition(deployment, 'Progressing');
  return progressing === undefined || progressing.reason === 'NewReplicaSetAvailable';
}

export const forkRolledOut = (deployments: readonly Deployment[], fork: ForkTarget) =>
  rolledOut(forkOf(deployments, fork.component), fork.image, fork.profile.workload.container);

/** Every fork rolled out. */
export function rolloutComplete(deployments: readonly Deployment[], forks: readonly ForkTarget[]): boolean {
  return forks.every((fork) => forkRolledOut(deployments, fork));
}

/**
 * How long a look at the rollout may watch. The step's first look watches up to the bound, so pods
 * that start quickly are routed at once, but never longer than the failure grace (so a fork that
 * turns unhealthy during the watch is seen within its grace). A later look, after a delayed
 * re-enqueue (the invocation is not held while pods start, see `rolloutWait`), only lists: 0.
 */
export function watchBoundMs(
  observations: Observations,
  settings: { failureGraceMs: number; watchBoundMs: number },
): number {
  if (observations.ready !== null) return 0;
  return Math.min(settings.watchBoundMs, settings.failureGraceMs + 50);
}

/** A fork whose Deployment gave up (`ProgressDeadlineExceeded`) fails the rollout at once. */
export function progressDeadlineFailure(
  deployments: readonly Deployment[],
  forks: readonly ForkTarget[],
): StepFailure | null {
  for (const { component } of forks) {
    const fork = forkOf(deployments, component);
    const progressing = fork && condition(fork, 'Progressing');
    if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
      return rolloutFailure(
        RolloutBlockerCode.ProgressDeadlineExceeded,
        `fork of "${component}" made no progress: ${progressing.message ?? 'ProgressDeadlineExceeded'}`,
        component,
      );
    }
  }
  return null;
}

/** Container waiting reasons that mean a fork cannot start, and the blocker each becomes after the grace. */
const unhealthyReasons = {
  ErrImagePull: RolloutBlockerCode.ImagePullFailed,
  ImagePullBackOff: RolloutBlockerCode.ImagePullFailed,
  CrashLoopBackOff: RolloutBlockerCode.CrashLoop,
} as const;
export type UnhealthyReason = keyof typeof unhealthyReasons;

const isUnhealthyReason = (reason: string | undefined): reason is UnhealthyReason =>
  reason !== undefined && Object.hasOwn(unhealthyReasons, reason);

/**
 * When a pod started being unhealthy, as the pod itself reports it. Kubernetes gives a waiting
 * container no time, so it is the moment the pod's containers last became not ready (the
 * `ContainersReady` condition's `lastTransitionTime`, False): for a pod that never became ready,
 * its start; for a crash loop, its last crash. Without that condition, the pod's start time, then
 * its creation. Times are whole seconds, so the grace can end up to a second early.
 */
function unhealthySince(pod: Pod): string | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'ContainersReady');
  if (ready?.status === 'False' && ready.lastTransitionTime) return ready.lastTransitionTime;
  return pod.status?.startTime ?? pod.metadata.creationTimestamp;
}

/**
 * Why a fork's container cannot start and since when, read from the pods of the fork that run its
 * target image (a pod of the previous image is not this rollout's); undefined when nothing says so.
 */
export function unhealthyFork(
  pods: readonly Pod[],
  fork: Pick<ForkTarget, 'component' | 'image'> & { container: string },
): { reason: UnhealthyReason; since: string | undefined } | undefined {
  const unhealthy = pods.flatMap((pod) => {
    if (pod.metadata.labels?.[Label.Component] !== fork.component) return [];
    if (pod.spec?.containers.find((c) => c.name === fork.container)?.image !== fork.image) return [];
    const reason = pod.status?.containerStatuses
      ?.filter((status) => status.name === fork.container)
      .map((status) => status.state?.waiting?.reason)
      .find(isUnhealthyReason);
    return reason ? [{ reason, since: unhealthySince(pod) }] : [];
  });
  const earliest = unhealthy
    .filter((u) => u.since !== undefined && !Number.isNaN(Date.parse(u.since)))
    .sort((a, b) => Date.parse(a.since as string) - Date.parse(b.since as string));
  return earliest[0] ?? unhealthy[0];
}

export interface UnhealthyFork {
  component: string;
  image: string;
  reason: UnhealthyReason;
  /** When its pod says it became unhealthy; undefined when the pod does not say. */
  since?: string | undefined;
}

/**
 * The failure grace: a fork unhealthy since `since` fails the rollout once `graceMs` has passed.
 * Since is the earlier of when its pod says it became unhealthy and when a wait first saw it so
 * (now, the first time, when the pod says nothing); a fork not unhealthy now is forgotten, so its
 * grace starts over. Answers the failure of the first fork past its grace, or each unhealthy fork's
 * since.
 */
export function failureGrace(
  unhealthy: readonly UnhealthyFork[],
  previous: Observations['bad_since'],
  now: Date,
  graceMs: number,
): StepFailure | { kind: 'within_grace'; bad_since: Observations['bad_since'] } {
  const badSince: Observations['bad_since'] = {};
  for (const { component, image, reason, since: reported } of unhealthy) {
    const seen = previous[component]?.since;
    const candidates = [seen, reported].filter(
      (t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)),
    );
    const since = candidates.length
      ? new Date(Math.min(...candidates.map((t) => Date.parse(t)))).toISOString()
      : now.toISOString();
    badSince[component] = { reason, since };
    if (now.getTime() - Date.parse(since) >= graceMs) {
      const code = unhealthyReasons[reason];
      const what =
        code === RolloutBlockerCode.CrashLoop
          ? 'keeps crashing (CrashLoopBackOff)'
          : `cannot be pulled (${reason})`;
      return rolloutFailure(code, `image ${image} of "${component}" ${what}`, component);
    }
  }
  return { kind: 'within_grace', bad_since: badSince };
}
