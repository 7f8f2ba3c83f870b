/**
 * Publishing builds (CI) and resolving a source ref to the build CI published for it. The service
 * knows refs only through publications: it never asks the forge, never starts CI, and never
 * substitutes a build of another ref or commit when the one asked for was not published.
 */
import * as v from 'valibot';
import { authorize } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import type { AuditStore } from '../auth/ports.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import { requireProject } from '../catalog/service.ts';
import type { Clock } from '../clock.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { buildId, type SourceRef } from './model.ts';
import type { BuildStore } from './ports.ts';
import { type Build, BuildView, type PublishBuildBody } from './schema.ts';

export interface BuildDeps {
  catalog: CatalogStore;
  builds: BuildStore;
  audit: AuditStore;
  clock: Clock;
}

/**
 * Publishes a build: 201 when new, 200 with the stored one when the same component, repository,
 * commit and digest were published before (a CI retry). Either way the publication is recorded for
 * its ref, so a build published again for another ref (a tag of the same commit) resolves by both.
 */
export async function publish(
  deps: BuildDeps,
  identity: Identity,
  project: string,
  body: PublishBuildBody,
): Promise<{ created: boolean; build: Build }> {
  authorize(identity, 'build:publish', { project, repository: body.repository, component: body.component });
  const version = await requireProject(deps, project);
  if (!version.components[body.component]) {
    throw new ProblemError(
      ErrorCode.UnknownReference,
      `component "${body.component}" is not registered in project "${project}"`,
      { errors: [{ path: '/component', message: 'unknown component' }] },
    );
  }
  const published_at = deps.clock.now().toISOString();
  const build: Build = {
    id: buildId(project, body),
    project,
    ...body,
    digest: body.image.slice(body.image.indexOf('@') + 1),
    published_at,
    published_by: identity.subject,
  };
  const created = (await deps.builds.put(build)) === 'created';
  const stored = created ? build : ((await deps.builds.get(build.id)) ?? build);
  await deps.builds.putRef({
    project,
    component: stored.component,
    repository: stored.repository,
    ref: body.ref,
    build_id: stored.id,
    commit_sha: stored.commit_sha,
    published_at,
  });
  await recordAudit(deps, identity, {
    action: 'build.published',
    project,
    target: stored.id,
    data: {
      component: stored.component,
      repository: stored.repository,
      ref: body.ref,
      commit_sha: stored.commit_sha,
      created,
    },
  });
  return { created, build: stored };
}

const commitPattern = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/** What `GET …/sources/resolve` asks for, its query checked by the contract. */
export interface SourceQuery {
  repository: string;
  component: string;
  ref: string;
}

export const SourceResolutionView = v.object({
  project: v.string(),
  repository: v.string(),
  component: v.string(),
  /** The ref as asked. */
  ref: v.string(),
  /** The ref as CI published it (`refs/heads/main` for `main`), or the commit when one was asked. */
  matched_ref: v.string(),
  commit_sha: v.string(),
  build: BuildView,
});
export type SourceResolution = v.InferOutput<typeof SourceResolutionView>;

/**
 * The published refs a ref may stand for, in git's order of precedence: the ref exactly, then the
 * tag, then the branch (`v1` → `v1`, `refs/tags/v1`, `refs/heads/v1`). A full ref also matches its
 * short form (`refs/heads/main` → `refs/heads/main`, `main`), for CI that publishes short names.
 */
export function refCandidates(ref: string): string[] {
  for (const prefix of ['refs/heads/', 'refs/tags/']) {
    if (ref.startsWith(prefix) && ref.length > prefix.length) return [ref, ref.slice(prefix.length)];
  }
  if (ref.startsWith('refs/')) return [ref];
  return [ref, `refs/tags/${ref}`, `refs/heads/${ref}`];
}

function notPublished(project: string, query: SourceQuery): ProblemError {
  return new ProblemError(
    ErrorCode.NotFound,
    `no build of component "${query.component}" from ${query.repository} is published for ${commitPattern.test(query.ref) ? 'commit' : 'ref'} "${query.ref}" in project "${project}"; CI must publish that revision first (the service neither starts CI nor substitutes an older build)`,
  );
}

/**
 * Resolves a ref (or a full commit SHA) to its commit and the build CI published for it: the newest
 * publication of the first candidate ref that has one (see `refCandidates`). 404 when none.
 */
export async function resolveSource(
  deps: BuildDeps,
  project: string,
  query: SourceQuery,
): Promise<SourceResolution> {
  const version = await requireProject(deps, project);
  if (!version.components[query.component]) {
    throw new ProblemError(
      ErrorCode.UnknownReference,
      `component "${query.component}" is not registered in project "${project}"`,
      { errors: [{ path: 'component', message: 'unknown component' }] },
    );
  }
  const answer = (matched_ref: string, build: Build): SourceResolution => ({
    project,
    repository: query.repository,
    component: query.component,
    ref: query.ref,
    matched_ref,
    commit_sha: build.commit_sha,
    build,
  });
  if (commitPattern.test(query.ref)) {
    const filter = { component: query.component, repository: query.repository, commit_sha: query.ref };
    const [build] = (await deps.builds.list(project, filter, { limit: 1, after: null })).items;
    if (!build) throw notPublished(project, query);
    return answer(query.ref, build);
  }
  for (const candidate of refCandidates(query.ref)) {
    const entry: SourceRef | null = await deps.builds.latestRef(
      project,
      query.component,
      query.repository,
      candidate,
    );
    if (!entry) continue;
    const build = await deps.builds.get(entry.build_id);
    if (build) return answer(candidate, build);
  }
  throw notPublished(project, query);
}
