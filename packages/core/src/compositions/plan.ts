/**
 * The planner: from a create body and the current catalog, what a composition would be — images,
 * inheritance, revisions, destination, lifetime, resources — and every reason it cannot be, as
 * data. The plan route returns it as is; create and update turn blockers into errors.
 */
import type { Build } from '../builds/schema.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import type { Baseline } from '../catalog/schema.ts';
import { addSeconds } from '../clock.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { readImage } from '../images.ts';
import { clusterList } from '../names.ts';
import type { Blocker, ResolvedImage } from './model.ts';
import { defaultTtlSeconds, maxOverrides, maxTtlSeconds, minTtlSeconds, type PlanView } from './schema.ts';
import { type SleepSettings, sleepAfter } from './sleep.ts';

export const BlockerCode = {
  UnknownProject: 'unknown_project',
  UnknownBaseline: 'unknown_baseline',
  UnknownComponent: 'unknown_component',
  ComponentNotInBaseline: 'component_not_in_baseline',
  UnknownBuild: 'unknown_build',
  BuildComponentMismatch: 'build_component_mismatch',
  TooManyOverrides: 'too_many_overrides',
  InvalidOverride: 'invalid_override',
  InvalidImage: 'invalid_image',
  InvalidTtl: 'invalid_ttl',
  TtlOutOfRange: 'ttl_out_of_range',
  PreviewRevisionChanged: 'preview_revision_changed',
  MessagingNotConfigured: 'messaging_not_configured',
  UnknownCluster: 'unknown_cluster',
} as const;
export type BlockerCode = (typeof BlockerCode)[keyof typeof BlockerCode];

/** Blockers that name something that does not exist (422 `unknown_reference` on create). */
export const referenceBlockers: ReadonlySet<string> = new Set([
  BlockerCode.UnknownProject,
  BlockerCode.UnknownBaseline,
  BlockerCode.UnknownComponent,
  BlockerCode.ComponentNotInBaseline,
  BlockerCode.UnknownBuild,
  BlockerCode.UnknownCluster,
]);

interface PlannedBlocker extends Blocker {
  /** JSON pointer into the request body. */
  path: string;
}

export interface PlanRequest {
  project: string;
  /** Absent: the project's `default_baseline`, decided here and nowhere else. */
  baseline?: string | undefined;
  overrides: Readonly<Record<string, { image?: string | undefined; build_id?: string | undefined }>>;
  ttl?: string | undefined;
  message_isolation: boolean;
  expected_preview_revisions: Readonly<Record<string, number>>;
}

export interface PlanContext {
  catalog: ProjectVersion | null;
  /** Every build the request names, looked up beforehand; null when unknown. */
  builds: ReadonlyMap<string, Build | null>;
  now: Date;
  /** The preview URL for a composition id on a baseline's preview domain and cluster. */
  previewUrl: (id: string, previewDomain: string, cluster: string) => string;
  /** The clusters the stage knows. */
  clusters: readonly string[];
  /** Updates keep the composition's lifetime; creates compute it from `ttl`. */
  fixedLifetime?: { ttl_seconds: number; expires_at: string };
  /** The stage's sleep default, maximum and crawler list. */
  sleep: SleepSettings;
}

/** A plan that something blocks: its view says what, nothing can be made from it. */
interface BlockedPlan {
  plannable: false;
  view: PlanView;
  blockers: PlannedBlocker[];
}

/** A plan with no blocker: everything a composition is made from. */
export interface PlannablePlan {
  plannable: true;
  view: PlanView;
  blockers: [];
  /** The baseline's name: the one asked for, or the project's default. */
  baselineName: string;
  baseline: Baseline;
  ttlSeconds: number;
  /** Idle seconds before its forks sleep; null: they never do. */
  sleepAfterSeconds: number | null;
  catalogVersion: { version: number; version_id: string };
}

export type Plan = BlockedPlan | PlannablePlan;

/** Placeholder for the id in a plan's destination URL: a plan has no composition yet. */
export const planIdPlaceholder = '{id}';

const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

type Block = (code: BlockerCode, message: string, path: string, component?: string | null) => void;

export function planOf(request: PlanRequest, context: PlanContext): Plan {
  const blockers: PlannedBlocker[] = [];
  const block: Block = (code, message, path, component = null) =>
    blockers.push({ code, message, path, component });

  const ttlSeconds = context.fixedLifetime?.ttl_seconds ?? planTtl(request.ttl, block);
  const { catalog } = context;
  const baselineName = request.baseline ?? catalog?.default_baseline ?? '';
  const baseline = planBaseline(request, baselineName, context, block);
  const overrideCount = Object.keys(request.overrides).length;
  if (overrideCount > maxOverrides) {
    block(
      BlockerCode.TooManyOverrides,
      `at most ${maxOverrides} components can be overridden; got ${overrideCount}`,
      '/overrides',
    );
  }
  const images: Record<string, ResolvedImage> = {};
  for (const [component, override] of Object.entries(request.overrides)) {
    const at = `/overrides/${pointerKey(component)}`;
    if (catalog && !catalog.components[component]) {
      block(BlockerCode.UnknownComponent, unknownComponent(component, request), at, component);
    } else if (baseline && !(component in baseline.components)) {
      block(
        BlockerCode.ComponentNotInBaseline,
        `component "${component}" does not run in baseline "${baselineName}"`,
        at,
        component,
      );
    }
    const resolved = resolveOverride(request, context, component, override, block);
    if (resolved) images[component] = resolved;
  }
  checkPreviewRevisions(request, catalog, block);
  if (request.message_isolation && baseline && baseline.messaging === null) {
    block(
      BlockerCode.MessagingNotConfigured,
      `baseline "${baselineName}" has no messaging set up (baselines[].messaging in the catalog), so message isolation cannot be enabled`,
      '/message_isolation',
    );
  }
  const view = planView(request, context, baseline, images, ttlSeconds, blockers);
  if (blockers.length > 0 || !baseline || !catalog || ttlSeconds === null) {
    return { plannable: false, view, blockers };
  }
  return {
    plannable: true,
    view,
    blockers: [],
    baselineName,
    baseline,
    ttlSeconds,
    sleepAfterSeconds: plannedSleep(request, baseline, context)?.seconds ?? null,
    catalogVersion: { version: catalog.version, version_id: catalog.version_id },
  };
}

const unknownComponent = (component: string, request: PlanRequest) =>
  `component "${component}" is not registered in project "${request.project}"`;

/** The baseline planned on, if the project has it; blocked too when its cluster is not the stage's. */
function planBaseline(
  request: PlanRequest,
  name: string,
  { catalog, clusters }: PlanContext,
  block: Block,
): Baseline | null {
  const entry = catalog?.baselines[name];
  const cluster = entry?.spec.cluster;
  if (cluster !== undefined && !clusters.includes(cluster)) {
    block(
      BlockerCode.UnknownCluster,
      `baseline "${name}" is on cluster "${cluster}", which is not one of this installation's clusters (${clusterList(clusters)}): its catalog entry or the installation's settings must change first`,
      '/baseline',
    );
  }
  if (!catalog) {
    block(BlockerCode.UnknownProject, `project "${request.project}" is not registered`, '/project');
  } else if (!entry) {
    block(
      BlockerCode.UnknownBaseline,
      `baseline "${name}" is not registered in project "${request.project}"`,
      '/baseline',
    );
  }
  return entry?.spec ?? null;
}

/** The image an override runs: the image given, or the published build's; null when it cannot be. */
function resolveOverride(
  request: PlanRequest,
  context: PlanContext,
  component: string,
  override: PlanRequest['overrides'][string],
  block: Block,
): ResolvedImage | null {
  const at = `/overrides/${pointerKey(component)}`;
  if ((override.image !== undefined) === (override.build_id !== undefined)) {
    const message = `override of "${component}" needs exactly one of image or build_id`;
    block(BlockerCode.InvalidOverride, message, at, component);
    return null;
  }
  if (override.image !== undefined) {
    const { image, problem } = readImage(override.image);
    if (image === null) {
      block(BlockerCode.InvalidImage, problem, `${at}/image`, component);
      return null;
    }
    return { image: override.image, source: 'image', build_id: null, digest: image.digest };
  }
  const buildId = override.build_id ?? '';
  const build = context.builds.get(buildId) ?? null;
  if (!build || build.project !== request.project) {
    block(
      BlockerCode.UnknownBuild,
      `build "${buildId}" is not a published build of project "${request.project}"; CI must publish it first`,
      `${at}/build_id`,
      component,
    );
    return null;
  }
  if (build.component !== component) {
    block(
      BlockerCode.BuildComponentMismatch,
      `build "${build.id}" was published for component "${build.component}", not "${component}"`,
      `${at}/build_id`,
      component,
    );
    return null;
  }
  return { image: build.image, source: 'build', build_id: build.id, digest: build.digest };
}

function checkPreviewRevisions(request: PlanRequest, catalog: ProjectVersion | null, block: Block): void {
  for (const [component, expected] of Object.entries(request.expected_preview_revisions)) {
    const at = `/expected_preview_revisions/${pointerKey(component)}`;
    const entry = catalog?.components[component];
    if (catalog && !entry) {
      block(BlockerCode.UnknownComponent, unknownComponent(component, request), at, component);
    } else if (entry && entry.revision !== expected) {
      block(
        BlockerCode.PreviewRevisionChanged,
        `the approved profile of "${component}" is at revision ${entry.revision}, not ${expected}`,
        at,
        component,
      );
    }
  }
}

function planView(
  request: PlanRequest,
  context: PlanContext,
  baseline: Baseline | null,
  images: Record<string, ResolvedImage>,
  ttlSeconds: number | null,
  blockers: readonly PlannedBlocker[],
): PlanView {
  const running = baseline ? Object.keys(baseline.components).sort() : [];
  const overridden = new Set(Object.keys(request.overrides));
  const profile = (name: string) => context.catalog?.components[name];
  const sleep = plannedSleep(request, baseline, context);
  return {
    images,
    inherited: running.filter((name) => !overridden.has(name)),
    profile_revisions: Object.fromEntries(
      running.flatMap((name) => {
        const entry = profile(name);
        return entry ? [[name, entry.revision]] : [];
      }),
    ),
    dependencies: Object.fromEntries(
      running.map((name) => [name, [...(profile(name)?.spec.dependencies ?? [])]]),
    ),
    destination: baseline
      ? {
          cluster: baseline.cluster,
          namespace: baseline.namespace,
          url: context.previewUrl(planIdPlaceholder, baseline.preview_domain, baseline.cluster),
        }
      : null,
    lifetime: planLifetime(context, ttlSeconds),
    resource_estimate: resourceEstimate(overridden, context.catalog, baseline),
    sleep: sleep ? { after: formatDuration(sleep.seconds) } : null,
    blockers: blockers.map(({ code, message, component }) => ({ code, message, component })),
    cautions: [...planCautions(overridden, images), ...sleepCautions(sleep)],
  };
}

/** Only forks sleep: a composition overriding nothing never does. */
function plannedSleep(request: PlanRequest, baseline: Baseline | null, context: PlanContext) {
  if (!baseline || Object.keys(request.overrides).length === 0) return null;
  return sleepAfter(baseline, context.sleep);
}

function sleepCautions(sleep: ReturnType<typeof plannedSleep>): PlanView['cautions'] {
  if (sleep?.cutFrom == null) return [];
  const message = `the baseline's sleep.after of ${formatDuration(sleep.cutFrom)} is cut to the stage's maximum, ${formatDuration(sleep.seconds)}`;
  return [{ code: 'sleep_after_cut', message }];
}

function planLifetime(context: PlanContext, ttlSeconds: number | null): PlanView['lifetime'] {
  if (context.fixedLifetime) {
    return {
      ttl: formatDuration(context.fixedLifetime.ttl_seconds),
      expires_at: context.fixedLifetime.expires_at,
    };
  }
  if (ttlSeconds === null) return { ttl: null, expires_at: null };
  return { ttl: formatDuration(ttlSeconds), expires_at: addSeconds(context.now, ttlSeconds).toISOString() };
}

/** What the forks add: each overridden component's resources times its baseline replicas. */
function resourceEstimate(
  overridden: ReadonlySet<string>,
  catalog: ProjectVersion | null,
  baseline: Baseline | null,
): PlanView['resource_estimate'] {
  const estimate = { cpu_millicores: 0, memory_mib: 0, pods: 0 };
  for (const name of overridden) {
    const resources = catalog?.components[name]?.spec.resources;
    const replicas = baseline?.components[name]?.replicas ?? 0;
    if (!resources || !replicas) continue;
    estimate.cpu_millicores += resources.cpu_millicores * replicas;
    estimate.memory_mib += resources.memory_mib * replicas;
    estimate.pods += replicas;
  }
  return estimate;
}

function planCautions(
  overridden: ReadonlySet<string>,
  images: Record<string, ResolvedImage>,
): PlanView['cautions'] {
  const cautions: PlanView['cautions'] = [];
  if (overridden.size === 0) {
    cautions.push({
      code: 'no_overrides',
      message: 'no component is overridden: the preview serves the baseline as is',
    });
  }
  for (const [component, resolved] of Object.entries(images)) {
    if (resolved.digest === null) {
      cautions.push({
        code: 'mutable_image_tag',
        message: `image of "${component}" is pinned by tag only; a re-pushed tag changes what the preview runs`,
      });
    }
  }
  return cautions;
}

function planTtl(ttl: string | undefined, block: Block): number | null {
  if (ttl === undefined) return defaultTtlSeconds;
  const seconds = parseDuration(ttl);
  if (seconds === null) {
    block(BlockerCode.InvalidTtl, `ttl "${ttl}" is not a duration such as 30m, 2h or 1h30m`, '/ttl');
    return null;
  }
  if (seconds < minTtlSeconds || seconds > maxTtlSeconds) {
    block(
      BlockerCode.TtlOutOfRange,
      `ttl must be between ${formatDuration(minTtlSeconds)} and ${formatDuration(maxTtlSeconds)}; got ${ttl}`,
      '/ttl',
    );
    return null;
  }
  return seconds;
}
