/**
 * The planner: from a create body and the current catalog, what a composition would be — images,
 * inheritance, revisions, destination, lifetime, resources — and every reason it cannot be, as
 * data. The plan route returns it as is; create and update turn blockers into errors.
 */
import type { Build } from '../builds/model.ts';
import type { Baseline } from '../catalog/manifest.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import { addSeconds } from '../clock.ts';
import { formatDuration, parseDuration } from '../duration.ts';
import { imageProblem, parseImage } from '../images.ts';
import type { Blocker, ResolvedImage } from './model.ts';
import { defaultTtlSeconds, maxOverrides, maxTtlSeconds, minTtlSeconds, type PlanView } from './schema.ts';

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
} as const;
export type BlockerCode = (typeof BlockerCode)[keyof typeof BlockerCode];

/** Blockers that name something that does not exist (422 `unknown_reference` on create). */
export const referenceBlockers: ReadonlySet<string> = new Set([
  BlockerCode.UnknownProject,
  BlockerCode.UnknownBaseline,
  BlockerCode.UnknownComponent,
  BlockerCode.ComponentNotInBaseline,
  BlockerCode.UnknownBuild,
]);

export interface PlannedBlocker extends Blocker {
  /** JSON pointer into the request body. */
  path: string;
}

export interface PlanRequest {
  project: string;
  baseline: string;
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
  /** The preview URL for a composition id on a baseline's preview domain. */
  previewUrl: (id: string, previewDomain: string) => string;
  /** Updates keep the composition's lifetime; creates compute it from `ttl`. */
  fixedLifetime?: { ttl_seconds: number; expires_at: string };
}

export interface Plan {
  view: PlanView;
  blockers: PlannedBlocker[];
  baseline: Baseline | null;
  ttlSeconds: number | null;
  catalogVersion: { version: number; version_id: string } | null;
}

/** Placeholder for the id in a plan's destination URL: a plan has no composition yet. */
export const planIdPlaceholder = '{id}';

const pointerKey = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

export function plan(request: PlanRequest, context: PlanContext): Plan {
  const blockers: PlannedBlocker[] = [];
  const block = (code: BlockerCode, message: string, path: string, component: string | null = null) =>
    blockers.push({ code, message, path, component });

  const ttlSeconds = context.fixedLifetime?.ttl_seconds ?? planTtl(request.ttl, block);
  const { catalog } = context;
  const baselineEntry = catalog?.baselines[request.baseline];
  if (!catalog)
    block(BlockerCode.UnknownProject, `project "${request.project}" is not registered`, '/project');
  else if (!baselineEntry) {
    block(
      BlockerCode.UnknownBaseline,
      `baseline "${request.baseline}" is not registered in project "${request.project}"`,
      '/baseline',
    );
  }
  const baseline = baselineEntry?.spec ?? null;

  const overrideNames = Object.keys(request.overrides);
  if (overrideNames.length > maxOverrides) {
    block(
      BlockerCode.TooManyOverrides,
      `at most ${maxOverrides} components can be overridden; got ${overrideNames.length}`,
      '/overrides',
    );
  }

  const images: Record<string, ResolvedImage> = {};
  for (const [component, override] of Object.entries(request.overrides)) {
    const at = `/overrides/${pointerKey(component)}`;
    if (catalog && !catalog.components[component]) {
      block(
        BlockerCode.UnknownComponent,
        `component "${component}" is not registered in project "${request.project}"`,
        at,
        component,
      );
    } else if (baseline && !(component in baseline.components)) {
      block(
        BlockerCode.ComponentNotInBaseline,
        `component "${component}" does not run in baseline "${request.baseline}"`,
        at,
        component,
      );
    }
    const hasImage = override.image !== undefined;
    const hasBuild = override.build_id !== undefined;
    if (hasImage === hasBuild) {
      block(
        BlockerCode.InvalidOverride,
        `override of "${component}" needs exactly one of image or build_id`,
        at,
        component,
      );
      continue;
    }
    if (override.image !== undefined) {
      const problem = imageProblem(override.image);
      if (problem) block(BlockerCode.InvalidImage, problem, `${at}/image`, component);
      else
        images[component] = {
          image: override.image,
          source: 'image',
          build_id: null,
          digest: parseImage(override.image)?.digest ?? null,
        };
    } else if (override.build_id !== undefined) {
      const build = context.builds.get(override.build_id) ?? null;
      if (!build || build.project !== request.project) {
        block(
          BlockerCode.UnknownBuild,
          `build "${override.build_id}" is not a published build of project "${request.project}"; CI must publish it first`,
          `${at}/build_id`,
          component,
        );
      } else if (build.component !== component) {
        block(
          BlockerCode.BuildComponentMismatch,
          `build "${build.id}" was published for component "${build.component}", not "${component}"`,
          `${at}/build_id`,
          component,
        );
      } else {
        images[component] = { image: build.image, source: 'build', build_id: build.id, digest: build.digest };
      }
    }
  }

  for (const [component, expected] of Object.entries(request.expected_preview_revisions)) {
    const at = `/expected_preview_revisions/${pointerKey(component)}`;
    const entry = catalog?.components[component];
    if (catalog && !entry) {
      block(
        BlockerCode.UnknownComponent,
        `component "${component}" is not registered in project "${request.project}"`,
        at,
        component,
      );
    } else if (entry && entry.revision !== expected) {
      block(
        BlockerCode.PreviewRevisionChanged,
        `the approved profile of "${component}" is at revision ${entry.revision}, not ${expected}`,
        at,
        component,
      );
    }
  }

  if (request.message_isolation && baseline && baseline.messaging === null) {
    block(
      BlockerCode.MessagingNotConfigured,
      `baseline "${request.baseline}" has no messaging set up (baselines[].messaging in the catalog), so message isolation cannot be enabled`,
      '/message_isolation',
    );
  }

  const running = baseline ? Object.keys(baseline.components).sort() : [];
  const overridden = new Set(Object.keys(request.overrides));
  const profile = (name: string) => catalog?.components[name];
  const lifetime = context.fixedLifetime
    ? { ttl: formatDuration(context.fixedLifetime.ttl_seconds), expires_at: context.fixedLifetime.expires_at }
    : ttlSeconds === null
      ? { ttl: null, expires_at: null }
      : { ttl: formatDuration(ttlSeconds), expires_at: addSeconds(context.now, ttlSeconds).toISOString() };

  const estimate = { cpu_millicores: 0, memory_mib: 0, pods: 0 };
  for (const name of overridden) {
    const resources = profile(name)?.spec.resources;
    const replicas = baseline?.components[name]?.replicas ?? 0;
    if (!resources || !replicas) continue;
    estimate.cpu_millicores += resources.cpu_millicores * replicas;
    estimate.memory_mib += resources.memory_mib * replicas;
    estimate.pods += replicas;
  }

  const cautions: { code: string; message: string }[] = [];
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

  return {
    view: {
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
            url: context.previewUrl(planIdPlaceholder, baseline.preview_domain),
          }
        : null,
      lifetime,
      resource_estimate: estimate,
      blockers: blockers.map(({ code, message, component }) => ({ code, message, component })),
      cautions,
    },
    blockers,
    baseline,
    ttlSeconds,
    catalogVersion: catalog ? { version: catalog.version, version_id: catalog.version_id } : null,
  };
}

function planTtl(
  ttl: string | undefined,
  block: (code: BlockerCode, message: string, path: string) => void,
): number | null {
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
