/**
 * The catalog as stored: one immutable version per project. Applying a manifest computes the next
 * version; a component or baseline whose content changed gets the next revision, an unchanged one
 * keeps its revision, so compositions can tell "approved profile changed" from "re-applied".
 */
import { contentHash } from '../canonical.ts';
import type { Baseline, ComponentProfile, ProjectManifest } from './schema.ts';

export interface Revisioned<T> {
  readonly spec: T;
  readonly revision: number;
  readonly hash: string;
}

export interface ProjectVersion {
  readonly project: string;
  readonly version: number;
  /** Unique per written version, so concurrent applies never write into each other's items. */
  readonly version_id: string;
  readonly default_baseline: string;
  readonly hash: string;
  readonly applied_at: string;
  readonly components: Readonly<Record<string, Revisioned<ComponentProfile>>>;
  readonly baselines: Readonly<Record<string, Revisioned<Baseline>>>;
}

/** The next version of a project, or null when the manifest changes nothing. */
export function nextProjectVersion(
  current: ProjectVersion | null,
  manifest: ProjectManifest,
  appliedAt: string,
  versionId: string,
): ProjectVersion | null {
  const hash = contentHash(manifest);
  if (current?.hash === hash) return null;
  return {
    project: manifest.name,
    version: (current?.version ?? 0) + 1,
    version_id: versionId,
    default_baseline: manifest.default_baseline,
    hash,
    applied_at: appliedAt,
    components: revise(current?.components, manifest.components),
    baselines: revise(current?.baselines, manifest.baselines),
  };
}

function revise<T extends { name: string }>(
  previous: Readonly<Record<string, Revisioned<T>>> | undefined,
  specs: readonly T[],
): Record<string, Revisioned<T>> {
  return Object.fromEntries(
    specs.map((spec) => {
      const hash = contentHash(spec);
      const before = previous?.[spec.name];
      const revision =
        before === undefined ? 1 : before.hash === hash ? before.revision : before.revision + 1;
      return [spec.name, { spec, revision, hash }];
    }),
  );
}

/** Labels selecting a component's pods when its profile does not say. */
export function logSelector(profile: ComponentProfile): Record<string, string> {
  return profile.log_selector ?? { 'app.kubernetes.io/name': profile.workload.name };
}
