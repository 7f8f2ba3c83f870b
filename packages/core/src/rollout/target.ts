/**
 * What a rollout works on: the catalog entries it needs, the baseline objects each fork copies,
 * where the public route points, and which objects go back to inheritance.
 */

import type { ProjectVersion } from '../catalog/model.ts';
import type { Baseline, ComponentProfile } from '../catalog/schema.ts';
import {
  type ClusterObject,
  type Deployment,
  Label,
  type OwnerReference,
  type Service,
} from '../cluster/objects.ts';
import { publicRoute, type SleepRouting } from '../cluster/render.ts';
import type { CompositionRecord } from '../compositions/model.ts';
import type { Operation } from '../operations/model.ts';
import { type RolloutBlocker, RolloutBlockerCode, rolloutBlocker, rolloutFailure } from './blockers.ts';
import type { StepFailure } from './chain.ts';
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
  sleep: SleepRouting | null = null,
): ClusterObject {
  return publicRoute({
    id: composition.id,
    baseline: target.baseline,
    entry: target.entry,
    entryOverridden: entryOverridden(composition, target),
    owner,
    sleep,
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
  sleep: SleepRouting | null = null,
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
    sleep,
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

export function forkOf<T extends ClusterObject>(objects: readonly T[], component: string): T | undefined {
  return objects.find((o) => o.metadata.labels?.[Label.Component] === component);
}
