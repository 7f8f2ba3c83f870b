import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import type { AuditStore } from '../auth/ports.ts';
import type { Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { newId } from '../names.ts';
import { type Cursors, type Page, type PageRequest, pageByName } from '../paging.ts';
import { logSelector, nextProjectVersion, type ProjectVersion, type Revisioned } from './model.ts';
import {
  claimsOf,
  describeClaim,
  type NamespaceClaim,
  type NamespaceKey,
  sameNamespace,
} from './namespaces.ts';
import type { CatalogStore, LiveCompositions } from './ports.ts';
import type {
  ApplyResult,
  Baseline,
  BaselineView,
  ComponentProfile,
  ComponentView,
  ProjectView,
} from './schema.ts';
import { type CatalogProblem, type ManifestLimits, validateManifest } from './validate.ts';

export interface CatalogDeps {
  catalog: CatalogStore;
  /** A namespace is given up only once none of its project's compositions live there. */
  compositions: LiveCompositions;
  audit: AuditStore;
  clock: Clock;
  /** Seals the cursors of the in-memory lists (components, baselines). */
  cursors: Cursors;
  /** What the installation allows a manifest to name: message topics, where baselines may be. */
  manifestLimits: ManifestLimits;
}

const claimsOfVersion = (version: ProjectVersion | null): NamespaceClaim[] =>
  version
    ? claimsOf(
        version.project,
        Object.values(version.baselines).map((b) => b.spec),
      )
    : [];

/**
 * Takes the namespaces of each changed project's next version before its pointer flips; one held by
 * another project refuses the whole apply (409, naming both), giving back what it took.
 */
async function claimNamespaces(deps: CatalogDeps, versions: readonly ProjectVersion[]): Promise<void> {
  for (const version of versions) {
    const wanted = claimsOfVersion(version);
    const taken = await deps.catalog.claimNamespaces(wanted);
    if (taken.length === 0) continue;
    for (const v of versions)
      await releaseFreeNamespaces(
        deps,
        v.project,
        claimsOfVersion(await deps.catalog.readProject(v.project)),
      );
    const wanting = wanted.find((w) => taken.some((t) => sameNamespace(t, w)));
    throw new ProblemError(
      ErrorCode.NamespaceTaken,
      `${taken.map(describeClaim).join('; ')}: project "${version.project}" (baseline "${wanting?.baseline}") cannot use it. A namespace belongs to one project.`,
    );
  }
}

/** The ids of the project's compositions not yet destroyed in namespace `where` (one without a cluster: any). */
async function liveCompositionsIn(
  deps: CatalogDeps,
  project: string,
  where: NamespaceKey,
): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const page = await deps.compositions.list({ project, projects: null }, { limit: 200, after });
    for (const c of page.items) {
      if (c.namespace === where.namespace && (c.cluster ?? where.cluster) === where.cluster) ids.push(c.id);
    }
    after = page.next_cursor;
  } while (after);
  return ids;
}

/**
 * An apply may not give up a namespace where its project still has compositions: their workloads
 * would stay there, rolling out into a namespace another project could claim at once.
 */
async function refuseGivingUpOccupied(
  deps: CatalogDeps,
  changes: readonly { next: ProjectVersion; current: ProjectVersion | null }[],
): Promise<void> {
  for (const { next, current } of changes) {
    const kept = claimsOfVersion(next);
    for (const given of claimsOfVersion(current).filter((c) => !kept.some((k) => sameNamespace(k, c)))) {
      const ids = await liveCompositionsIn(deps, next.project, given);
      if (ids.length === 0) continue;
      const named = ids.slice(0, 10).join(', ') + (ids.length > 10 ? ` and ${ids.length - 10} more` : '');
      throw new ProblemError(
        ErrorCode.NamespaceInUse,
        `project "${next.project}" still has ${ids.length} live composition(s) in namespace "${given.namespace}" (cluster ${given.cluster}): ${named}. Destroy them (or let them expire) before its baselines leave that namespace; nothing was written.`,
      );
    }
  }
}

/**
 * Gives up the namespaces the project holds but `keep`, except one where a composition of the
 * project still lives (a create that planned on the version before): it stays the project's until
 * a later apply finds it empty.
 */
async function releaseFreeNamespaces(
  deps: CatalogDeps,
  project: string,
  keep: readonly NamespaceKey[],
): Promise<void> {
  const held = await deps.catalog.heldNamespaces(project);
  const release: NamespaceKey[] = [];
  for (const claim of held.filter((h) => !keep.some((k) => sameNamespace(k, h)))) {
    if ((await liveCompositionsIn(deps, project, claim)).length === 0) release.push(claim);
  }
  if (release.length > 0) await deps.catalog.releaseNamespaces(project, release);
}

const maxCommitAttempts = 5;

/**
 * Dry run: every problem, nothing written. The caller must be able to read each project the
 * manifest names; one it may not see answers the 404 an unknown object does.
 */
export function validate(
  deps: Pick<CatalogDeps, 'manifestLimits'>,
  caller: Identity,
  input: unknown,
): { valid: boolean; problems: CatalogProblem[] } {
  const result = validateManifest(input, deps.manifestLimits);
  if (!result.valid) return { valid: false, problems: result.problems };
  for (const project of result.manifest.projects) {
    authorize(caller, 'catalog:read', { project: project.name });
  }
  return { valid: true, problems: [] };
}

/**
 * Registers a manifest atomically: each changed project gets a new version, and all their pointers
 * flip in one conditional write. A concurrent apply to the same project makes the commit fail; we
 * then recompute against the winner's version, so concurrent applies serialize.
 */
export async function apply(deps: CatalogDeps, caller: Identity, input: unknown): Promise<ApplyResult> {
  const result = validateManifest(input, deps.manifestLimits);
  if (!result.valid) {
    throw new ProblemError(ErrorCode.ValidationFailed, 'The manifest is invalid; nothing was written.', {
      errors: result.problems,
    });
  }
  for (const project of result.manifest.projects) {
    authorize(caller, 'catalog:apply', { project: project.name });
  }
  for (let attempt = 1; attempt <= maxCommitAttempts; attempt++) {
    const currents = await Promise.all(result.manifest.projects.map((p) => deps.catalog.readProject(p.name)));
    const appliedAt = deps.clock.now().toISOString();
    const planned = result.manifest.projects.map((project, i) => {
      const current = currents[i] ?? null;
      return { current, next: nextProjectVersion(current, project, appliedAt, newId('v')) };
    });
    const changes = planned.flatMap(({ current, next }) =>
      next ? [{ next, previous_version_id: current?.version_id ?? null }] : [],
    );
    await refuseGivingUpOccupied(
      deps,
      planned.flatMap(({ current, next }) => (next ? [{ current, next }] : [])),
    );
    await claimNamespaces(
      deps,
      changes.map(({ next }) => next),
    );
    if (changes.length === 0 || (await deps.catalog.commit(changes))) {
      for (const { next } of changes) {
        await releaseFreeNamespaces(deps, next.project, claimsOfVersion(next));
        await recordAudit(deps, caller, {
          action: 'catalog.applied',
          project: next.project,
          target: next.version_id,
          data: { version: next.version },
        });
      }
      return {
        changed: changes.length > 0,
        projects: planned.map(({ current, next }) =>
          summary(next ?? (current as ProjectVersion), next !== null),
        ),
      };
    }
  }
  throw new ProblemError(ErrorCode.CatalogConflict, 'Other applies kept changing these projects; retry.');
}

function summary(version: ProjectVersion, changed: boolean): ApplyResult['projects'][number] {
  return {
    name: version.project,
    version: version.version,
    changed,
    revisions: Object.fromEntries(Object.entries(version.components).map(([name, c]) => [name, c.revision])),
  };
}

/** The projects the caller may read, by name. */
export async function listProjects(
  deps: CatalogDeps,
  caller: Identity,
  page: PageRequest,
): Promise<Page<ProjectView>> {
  const readable = readableProjects(caller.grants, 'catalog:read');
  return deps.catalog.listProjects(page, readable === anyProject ? null : [...readable]);
}

export async function requireProject(
  deps: Pick<CatalogDeps, 'catalog'>,
  project: string,
): Promise<ProjectVersion> {
  const version = await deps.catalog.readProject(project);
  if (!version) throw new ProblemError(ErrorCode.NotFound, `project "${project}" not found`);
  return version;
}

export async function listComponents(
  deps: CatalogDeps,
  project: string,
  page: PageRequest,
): Promise<Page<ComponentView>> {
  const version = await requireProject(deps, project);
  const entries = Object.values(version.components).map((c) => ({ name: c.spec.name, entry: c }));
  return mapPage(deps, { list: 'components', project }, entries, page, (e) => componentView(e.entry));
}

export async function listBaselines(
  deps: CatalogDeps,
  project: string,
  page: PageRequest,
): Promise<Page<BaselineView>> {
  const version = await requireProject(deps, project);
  const entries = Object.values(version.baselines).map((b) => ({ name: b.spec.name, entry: b }));
  return mapPage(deps, { list: 'baselines', project }, entries, page, (e) => baselineView(e.entry));
}

function mapPage<T extends { name: string }, U>(
  deps: CatalogDeps,
  list: unknown,
  items: T[],
  page: PageRequest,
  map: (item: T) => U,
): Page<U> {
  const result = pageByName(items, page, { cursors: deps.cursors, list });
  if (!result)
    throw new ProblemError(ErrorCode.InvalidQuery, 'after is not a cursor this list returned', {
      errors: [{ path: 'after', message: 'unknown cursor' }],
    });
  return { items: result.items.map(map), next_cursor: result.next_cursor };
}

function componentView(entry: Revisioned<ComponentProfile>): ComponentView {
  return { ...entry.spec, log_selector: logSelector(entry.spec), revision: entry.revision };
}

function baselineView(entry: Revisioned<Baseline>): BaselineView {
  return { ...entry.spec, revision: entry.revision };
}
