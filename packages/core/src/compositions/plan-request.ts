/** The plan of a composition request, read from the catalog and builds, and what a composition takes from it. */
import { Decision, decide, type Permission } from '../auth/access.ts';
import type { Identity } from '../auth/identity.ts';
import type { Build } from '../builds/schema.ts';
import { ErrorCode, type FieldError, ProblemError } from '../errors.ts';
import type { CompositionRecord } from './model.ts';
import {
  BlockerCode,
  type Plan,
  type PlannablePlan,
  type PlanRequest,
  planOf,
  referenceBlockers,
} from './plan.ts';
import type { CompositionDeps } from './ports.ts';
import type { CreateCompositionBody, PlanView } from './schema.ts';
import { defaultSleepSettings } from './sleep.ts';

export async function plan(
  deps: CompositionDeps,
  caller: Identity,
  input: CreateCompositionBody,
): Promise<PlanView> {
  return (await planFor(deps, caller, 'composition:read', input, deps.clock.now())).view;
}

/**
 * Plans `request` against the project's current catalog and the builds it names, for a caller
 * holding `permission` on the project: 403 when it may see the project but not do this; a project
 * it may not see plans as an unregistered one, so the answer does not tell the two apart.
 */
export async function planFor(
  deps: CompositionDeps,
  caller: Pick<Identity, 'grants'>,
  permission: Permission,
  request: PlanRequest,
  now: Date,
  fixedLifetime?: { ttl_seconds: number; expires_at: string },
): Promise<Plan> {
  const access = decide(caller.grants, permission, { project: request.project });
  if (access === Decision.Forbidden) {
    throw new ProblemError(
      ErrorCode.Forbidden,
      `This needs the ${permission} permission on project "${request.project}".`,
    );
  }
  const buildIds = [
    ...new Set(
      Object.values(request.overrides).flatMap((o) => (o.build_id === undefined ? [] : [o.build_id])),
    ),
  ];
  const [catalog, builds] = await Promise.all([
    access === Decision.Allowed ? deps.catalog.readProject(request.project) : null,
    Promise.all(
      buildIds.map(async (id): Promise<[string, Build | null]> => [id, await lookupBuild(deps, id)]),
    ),
  ]);
  return planOf(request, {
    catalog,
    builds: new Map(builds),
    now,
    previewUrl: deps.previewUrl,
    clusters: deps.clusters.names,
    sleep: deps.sleep ?? defaultSleepSettings,
    ...(fixedLifetime ? { fixedLifetime } : {}),
  });
}

function lookupBuild(deps: CompositionDeps, id: string): Promise<Build | null> {
  return /^[a-z0-9-]{1,64}$/.test(id) ? deps.builds.get(id) : Promise.resolve(null);
}

/** A blocked plan becomes one error: 409 when the only problem is a changed profile revision, else 422. */
export function rejectBlocked(plan: Plan): asserts plan is PlannablePlan {
  if (plan.plannable) return;
  const { blockers } = plan;
  const errors: FieldError[] = blockers.map((b) => ({ path: b.path, message: b.message, code: b.code }));
  const detail = blockers.map((b) => b.message).join('; ');
  if (blockers.every((b) => b.code === BlockerCode.PreviewRevisionChanged)) {
    throw new ProblemError(ErrorCode.PreviewRevisionChanged, detail, { errors });
  }
  const unprocessable = blockers.filter((b) => b.code !== BlockerCode.PreviewRevisionChanged);
  const code = unprocessable.every((b) => referenceBlockers.has(b.code))
    ? ErrorCode.UnknownReference
    : ErrorCode.ValidationFailed;
  throw new ProblemError(code, detail, { errors });
}

/** The override selectors as asked for: an image or a build, the other null. */
export function selectors(overrides: PlanRequest['overrides']): CompositionRecord['overrides'] {
  return Object.fromEntries(
    Object.entries(overrides).map(([name, o]) => [
      name,
      { image: o.image ?? null, build_id: o.build_id ?? null },
    ]),
  );
}

/** What the rollout makes real: the plan's images and revisions, at the catalog version planned from. */
export function desiredState(result: PlannablePlan): CompositionRecord['desired'] {
  return {
    images: result.view.images,
    inherited: result.view.inherited,
    profile_revisions: result.view.profile_revisions,
    catalog_version: result.catalogVersion.version,
    catalog_version_id: result.catalogVersion.version_id,
  };
}
