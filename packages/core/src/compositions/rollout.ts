/**
 * The rules of a rollout, as functions of what the worker read: the catalog entries it needs,
 * whether the baseline can be forked, when a fork is rolled out, the failure grace for unhealthy
 * forks, and the composition a finished rollout or destroy leaves. Blocker codes are listed in
 * docs/orchestration.md.
 */
import type { Baseline, ComponentProfile } from '../catalog/manifest.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import {
  type ClusterObject,
  condition,
  type Deployment,
  Label,
  type OwnerReference,
  type Pod,
  type Service,
} from '../cluster/objects.ts';
import { publicRoute } from '../cluster/render.ts';
import { type CheckRecord, CheckStatus } from '../verification/model.ts';
import type { StepFailure, StepWait } from './lifecycle.ts';
import {
  type Blocker,
  type CompositionRecord,
  type MessageSubscriptionState,
  type Observations,
  type Operation,
  Phase,
} from './model.ts';

/** `svc composition wait` (spec part 8): 30 s unless told, at most 60 s. */
export const waitLimits = { defaultSeconds: 30, maxSeconds: 60 } as const;

/**
 * How long a fork may stay in ErrImagePull/ImagePullBackOff/CrashLoopBackOff before its rollout
 * fails: a third less than the default wait, so that a failing image ends a default
 * `svc composition wait` as "failed", with its blocker, not as "timed out" by chance (the failure
 * is recorded at most a recheck after the grace ends). Long enough for a few pull retries.
 */
export const defaultFailureGraceMs = 20_000;

export const RolloutBlockerCode = {
  BaselineMissing: 'baseline_missing',
  ComponentMissing: 'component_missing',
  BaselineWorkloadMissing: 'baseline_workload_missing',
  BaselineServiceMissing: 'baseline_service_missing',
  ContainerMissing: 'container_missing',
  MessagingNotConfigured: 'messaging_not_configured',
  MessagingTopicMissing: 'messaging_topic_missing',
  MessagingAccessDenied: 'messaging_access_denied',
  MessagingCleanupFailed: 'messaging_cleanup_failed',
  AnchorMissing: 'anchor_missing',
  ProgressDeadlineExceeded: 'progress_deadline_exceeded',
  ImagePullFailed: 'image_pull_failed',
  CrashLoop: 'crash_loop',
  StepFailed: 'step_failed',
} as const;
export type RolloutBlockerCode = (typeof RolloutBlockerCode)[keyof typeof RolloutBlockerCode];

export interface RolloutBlocker extends Blocker {
  code: RolloutBlockerCode;
}

export function rolloutBlocker(
  code: RolloutBlockerCode,
  message: string,
  component: string | null = null,
): RolloutBlocker {
  return { code, message, component };
}

/** A step's failure with one blocker. */
export function rolloutFailure(
  code: RolloutBlockerCode,
  message: string,
  component: string | null = null,
): StepFailure {
  return { kind: 'fail', blockers: [rolloutBlocker(code, message, component)] };
}

/**
 * A step that kept failing until the queue's last receive. `cause` is a short, outward cause
 * (core's `outwardCause`); the error itself is in the worker log under the operation id.
 */
export function stepFailedBlocker(
  step: string,
  receiveCount: number,
  cause: string,
  operationId: string,
): RolloutBlocker {
  return rolloutBlocker(
    RolloutBlockerCode.StepFailed,
    `step ${step} failed ${receiveCount} times; last error: ${cause} (the worker log has the detail under operation ${operationId})`,
  );
}

/** An overridden component: the image it should run and its profile. */
export interface ForkTarget {
  component: string;
  image: string;
  profile: ComponentProfile;
}

/** The catalog entries a rollout needs, from the catalog version the composition was planned from. */
export interface RolloutTarget {
  catalog: ProjectVersion;
  baseline: Baseline;
  /** Profiles of the overridden components and of the entry component. */
  profiles: Record<string, ComponentProfile>;
  forks: ForkTarget[];
  entry: ComponentProfile;
}

/** The rollout's catalog entries, or the blocker saying which one is no longer registered. */
export function rolloutTarget(
  catalog: ProjectVersion | null,
  composition: Pick<CompositionRecord, 'project' | 'baseline' | 'desired'>,
): RolloutTarget | StepFailure {
  const baseline = catalog?.baselines[composition.baseline]?.spec;
  if (!catalog || !baseline) {
    return rolloutFailure(
      RolloutBlockerCode.BaselineMissing,
      `baseline "${composition.baseline}" of project "${composition.project}" is no longer registered`,
    );
  }
  const missing = (name: string) =>
    rolloutFailure(RolloutBlockerCode.ComponentMissing, `component "${name}" is no longer registered`, name);
  const profiles: Record<string, ComponentProfile> = {};
  const forks: ForkTarget[] = [];
  for (const [component, { image }] of Object.entries(composition.desired.images)) {
    const profile = catalog.components[component]?.spec;
    if (!profile) return missing(component);
    profiles[component] = profile;
    forks.push({ component, image, profile });
  }
  const entry = catalog.components[baseline.entry_component]?.spec;
  if (!entry) return missing(baseline.entry_component);
  profiles[baseline.entry_component] = entry;
  return { catalog, baseline, profiles, forks, entry };
}

/** An overridden component with the baseline Deployment and Service its fork copies, as read. */
export interface ForkBase extends ForkTarget {
  deployment: Deployment | null;
  service: Service | null;
}

export interface ForkableBase extends ForkTarget {
  deployment: Deployment;
  service: Service | null;
}

/** The bases the forks copy, or what is missing from the baseline to fork it. */
export function forkableBases(
  namespace: string,
  bases: readonly ForkBase[],
): { kind: 'forkable'; bases: ForkableBase[] } | StepFailure {
  const blockers: RolloutBlocker[] = [];
  const forkable: ForkableBase[] = [];
  for (const { deployment, service, ...fork } of bases) {
    const { component, profile } = fork;
    const workload = `baseline Deployment ${namespace}/${profile.workload.name}`;
    if (!deployment) {
      blockers.push(
        rolloutBlocker(
          RolloutBlockerCode.BaselineWorkloadMissing,
          `${workload} of "${component}" does not exist`,
          component,
        ),
      );
    } else if (!deployment.spec.template.spec.containers.some((c) => c.name === profile.workload.container)) {
      blockers.push(
        rolloutBlocker(
          RolloutBlockerCode.ContainerMissing,
          `${workload} has no container "${profile.workload.container}"`,
          component,
        ),
      );
    } else {
      forkable.push({ ...fork, deployment, service });
    }
    if (!service) {
      blockers.push(
        rolloutBlocker(
          RolloutBlockerCode.BaselineServiceMissing,
          `baseline Service ${namespace}/${profile.service.name} of "${component}" does not exist`,
          component,
        ),
      );
    }
  }
  return blockers.length ? { kind: 'fail', blockers } : { kind: 'forkable', bases: forkable };
}

/** Whether the baseline's entry component is overridden: the public route then waits for its fork. */
function entryOverridden(
  composition: Pick<CompositionRecord, 'desired'>,
  target: Pick<RolloutTarget, 'baseline'>,
): boolean {
  return target.baseline.entry_component in composition.desired.images;
}

/**
 * The public route once the forks are rolled out: to the entry's fork when the entry is overridden,
 * else to the baseline entry; answers are no longer marked pending.
 */
export function entryRoute(
  composition: Pick<CompositionRecord, 'id' | 'desired'>,
  target: Pick<RolloutTarget, 'baseline' | 'entry'>,
  owner: OwnerReference,
): ClusterObject {
  return publicRoute({
    id: composition.id,
    baseline: target.baseline,
    entry: target.entry,
    entryOverridden: entryOverridden(composition, target),
    owner,
  });
}

/**
 * The public route while `generation` rolls out, its answers marked pending: to whatever serves the
 * entry until the forks are out — the baseline entry, or the entry's fork of the last rolled-out
 * generation, which keeps its pods while the new ones start. None for a first rollout that
 * overrides the entry: its preview URL has no route (404) until the fork is out, which misleads
 * nobody.
 */
export function pendingEntryRoute(
  composition: Pick<CompositionRecord, 'id' | 'desired' | 'observed' | 'observed_generation'>,
  target: Pick<RolloutTarget, 'baseline' | 'entry'>,
  owner: OwnerReference,
  generation: number,
): ClusterObject | null {
  const entry = target.baseline.entry_component;
  const servedByFork = composition.observed_generation > 0 && entry in composition.observed.components;
  if (entryOverridden(composition, target) && composition.observed_generation === 0) return null;
  return publicRoute({
    id: composition.id,
    baseline: target.baseline,
    entry: target.entry,
    entryOverridden: entryOverridden(composition, target) && servedByFork,
    owner,
    pendingGeneration: generation,
  });
}

/** Objects of components no longer overridden: they go back to inheritance. */
export function inheritedAgain(
  objects: readonly ClusterObject[],
  composition: Pick<CompositionRecord, 'desired'>,
): ClusterObject[] {
  return objects.filter((o) => {
    const component = o.metadata.labels?.[Label.Component];
    return component !== undefined && !(component in composition.desired.images);
  });
}

/**
 * Whether forks of components no longer overridden may exist, so `apply` must list them. Not when
 * the previous generation succeeded (its observed components are exactly what it forked, and its
 * own apply removed anything older) and this one keeps every component it forked. A failed or
 * superseded operation in between, or one that never finished, may have left forks no record
 * names: then it lists.
 */
export function mayHaveInherited(
  composition: Pick<CompositionRecord, 'desired' | 'observed' | 'observed_generation'>,
  operation: Pick<Operation, 'generation'>,
): boolean {
  if (composition.observed_generation !== operation.generation - 1) return true;
  return Object.keys(composition.observed.components).some((c) => !(c in composition.desired.images));
}

function forkOf<T extends ClusterObject>(objects: readonly T[], component: string): T | undefined {
  return objects.find((o) => o.metadata.labels?.[Label.Component] === component);
}

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

const forkRolledOut = (deployments: readonly Deployment[], fork: ForkTarget) =>
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
