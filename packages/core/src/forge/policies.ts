/**
 * Repository preview policies: read, list, configure and delete (then converge the repository's pull
 * requests). A repository belongs to one project: the first policy saved for it holds it, another
 * project's save is refused (409 `repository_taken`, naming the holder), and only deleting that
 * policy gives it back. A policy of another project (saved before repositories were held) is
 * inert: only the holder's acts.
 */

import * as v from 'valibot';
import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import { requireProject } from '../catalog/service.ts';
import { maxTtlSeconds, minTtlSeconds } from '../compositions/schema.ts';
import { parseDuration } from '../duration.ts';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { PreviewPolicy } from './model.ts';
import type { ForgeDeps } from './ports.ts';
import { type PreviewPolicyBody, RepositoryName } from './schema.ts';

function requireRepository(repository: string): string {
  if (!v.is(RepositoryName, repository)) {
    throw new ProblemError(ErrorCode.NotFound, `repository "${repository}" is not owner/name`);
  }
  return repository;
}

export async function getPolicy(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Pick<Identity, 'grants'>,
  project: string,
  repository: string,
): Promise<PreviewPolicy> {
  authorize(caller, 'policy:read', { project });
  const policy = await deps.forgeStore.getPolicy(project, requireRepository(repository));
  if (!policy) {
    throw new ProblemError(ErrorCode.NotFound, `no preview policy for ${repository} in project "${project}"`);
  }
  return policy;
}

export async function listPolicies(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  caller: Pick<Identity, 'grants'>,
  page: PageRequest,
): Promise<Page<PreviewPolicy>> {
  const readable = readableProjects(caller.grants, 'policy:read');
  const result = await deps.forgeStore.listPolicies(page);
  return {
    items: result.items.filter((p) => readable === anyProject || readable.has(p.project)),
    next_cursor: result.next_cursor,
  };
}

/** The policy's baseline and components must be registered in the project, its TTL within bounds. */
function checkPolicyReferences(version: ProjectVersion, project: string, body: PreviewPolicyBody): void {
  const problems: FieldError[] = [];
  if (!version.baselines[body.baseline]) {
    problems.push({
      path: '/baseline',
      message: `baseline "${body.baseline}" is not registered in project "${project}"`,
    });
  }
  body.components.forEach((component, index) => {
    if (!version.components[component]) {
      problems.push({ path: `/components/${index}`, message: `component "${component}" is not registered` });
    }
  });
  if (problems.length) {
    throw new ProblemError(ErrorCode.UnknownReference, problems.map((p) => p.message).join('; '), {
      errors: problems,
    });
  }
  const ttl = parseDuration(body.ttl);
  if (ttl === null || ttl < minTtlSeconds || ttl > maxTtlSeconds) {
    throw validationFailed([{ path: '/ttl', message: `ttl must be between ${minTtlSeconds}s and 24h` }]);
  }
}

/**
 * PUT: the whole policy. The baseline and components must be registered in the project, the TTL
 * within the composition bounds. `expected_revision` guards against a concurrent edit (409
 * `stale_revision`). Every pull request of the repository converges to the new policy.
 */
export async function putPolicy(
  deps: ForgeDeps,
  caller: Identity,
  project: string,
  repository: string,
  body: PreviewPolicyBody,
): Promise<{ created: boolean; policy: PreviewPolicy }> {
  authorize(caller, 'policy:write', { project });
  requireRepository(repository);
  const version = await requireProject(deps, project);
  checkPolicyReferences(version, project, body);
  const current = await deps.forgeStore.getPolicy(project, repository);
  const revision = current?.revision ?? 0;
  if (body.expected_revision !== undefined && body.expected_revision !== revision) {
    throw new ProblemError(
      ErrorCode.StaleRevision,
      `expected_revision is ${body.expected_revision}; the policy is at revision ${revision}.`,
      {
        errors: [{ path: '/expected_revision', message: `current revision is ${revision}` }],
      },
    );
  }
  await refuseOtherProjectsRepository(deps, project, repository);
  const { expected_revision: _, ...fields } = body;
  const policy: PreviewPolicy = {
    ...fields,
    project,
    repository,
    revision: revision + 1,
    updated_at: deps.clock.now().toISOString(),
    updated_by: caller.subject,
  };
  const written = await deps.forgeStore.putPolicy(policy, revision);
  if (!written.saved && written.owner !== null) throw repositoryTaken(repository, [written.owner], project);
  if (!written.saved) {
    throw new ProblemError(ErrorCode.StaleRevision, 'The policy changed meanwhile; read it again and retry.');
  }
  await recordAudit(deps, caller, {
    action: AuditAction.PreviewPolicySaved,
    project,
    target: repository,
    data: { revision: policy.revision, enabled: policy.enabled, trigger_label: policy.trigger_label },
  });
  await convergeLater(deps, project, repository);
  return { created: current === null, policy };
}

function repositoryTaken(repository: string, holders: readonly string[], project: string): ProblemError {
  const named = holders.map((h) => `"${h}"`).join(' and ');
  return new ProblemError(
    ErrorCode.RepositoryTaken,
    `repository ${repository} belongs to project ${named}, whose preview policy holds it: project "${project}" cannot have one too. To move it, its policy there is deleted first (docs/forge.md).`,
    { errors: [{ path: 'repository', message: `belongs to project ${named}` }] },
  );
}

/**
 * A repository no project holds yet may still have policies saved before repositories were held:
 * those projects hold it together until all but one policy is deleted (the installation check
 * names them), so no one else's save takes it from under them.
 */
async function refuseOtherProjectsRepository(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  project: string,
  repository: string,
) {
  const owner = await deps.forgeStore.repositoryOwner(repository);
  if (owner !== null) {
    if (owner !== project) throw repositoryTaken(repository, [owner], project);
    return;
  }
  const others = (await deps.forgeStore.policiesOf(repository)).filter((p) => p.project !== project);
  if (others.length > 0)
    throw repositoryTaken(repository, [...new Set(others.map((p) => p.project))], project);
}

async function convergeLater(deps: ForgeDeps, project: string, repository: string): Promise<void> {
  await deps.jobs
    .send({ kind: 'forge-repository', project, repository })
    .catch((error: unknown) =>
      deps.log({ level: 'warn', msg: 'forge job not enqueued', error: String(error) }),
    );
}

/**
 * DELETE: the project's policy goes, and with it the project's hold on the repository, so another
 * project may save one. Its pull requests' previews stop (the convergence finds no policy).
 */
export async function deletePolicy(
  deps: ForgeDeps,
  caller: Identity,
  project: string,
  repository: string,
): Promise<void> {
  authorize(caller, 'policy:write', { project });
  requireRepository(repository);
  if (!(await deps.forgeStore.deletePolicy(project, repository))) {
    throw new ProblemError(ErrorCode.NotFound, `no preview policy for ${repository} in project "${project}"`);
  }
  await recordAudit(deps, caller, {
    action: AuditAction.PreviewPolicyDeleted,
    project,
    target: repository,
    data: {},
  });
  await convergeLater(deps, project, repository);
}

/** The project's policy for the repository if it acts: the project holds the repository, or no project does. */
export async function policyInEffect(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  project: string,
  repository: string,
): Promise<PreviewPolicy | null> {
  const [policy, owner] = await Promise.all([
    deps.forgeStore.getPolicy(project, repository),
    deps.forgeStore.repositoryOwner(repository),
  ]);
  return policy && (owner === null || owner === project) ? policy : null;
}

/** The repository's policies that act: its holder's, or all of them while no project holds it. */
export async function policiesInEffect(
  deps: Pick<ForgeDeps, 'forgeStore'>,
  repository: string,
): Promise<PreviewPolicy[]> {
  const [policies, owner] = await Promise.all([
    deps.forgeStore.policiesOf(repository),
    deps.forgeStore.repositoryOwner(repository),
  ]);
  return owner === null ? policies : policies.filter((p) => p.project === owner);
}

/** Every policy of the installation, all pages (the reconciliation's and an installation event's list). */
export async function allPolicies(deps: {
  forgeStore: Pick<ForgeDeps['forgeStore'], 'listPolicies'>;
}): Promise<PreviewPolicy[]> {
  const policies: PreviewPolicy[] = [];
  let after: string | null = null;
  do {
    const page = await deps.forgeStore.listPolicies({ limit: 200, after });
    policies.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return policies;
}
