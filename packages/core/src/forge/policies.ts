/** Repository preview policies: read, list, and configure (then converge the repository's pull requests). */

import * as v from 'valibot';
import { anyProject, authorize, readableProjects } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import type { Identity } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import { requireProject } from '../catalog/service.ts';
import { maxTtlSeconds, minTtlSeconds } from '../compositions/schema.ts';
import { parseDuration } from '../duration.ts';
import { ErrorCode, type FieldError, ProblemError, validationFailed } from '../errors.ts';
import type { Page, PageRequest } from '../paging.ts';
import { parseOrThrow } from '../validation.ts';
import { type PreviewPolicy, PreviewPolicyBody, RepositoryName } from './model.ts';
import type { ForgeDeps } from './ports.ts';

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
  input: unknown,
): Promise<{ created: boolean; policy: PreviewPolicy }> {
  authorize(caller, 'policy:write', { project });
  requireRepository(repository);
  const body = parseOrThrow(PreviewPolicyBody, input);
  const version = await requireProject(deps, project);
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
  const { expected_revision: _, ...fields } = body;
  const policy: PreviewPolicy = {
    ...fields,
    project,
    repository,
    revision: revision + 1,
    updated_at: deps.clock.now().toISOString(),
    updated_by: caller.subject,
  };
  if (!(await deps.forgeStore.putPolicy(policy, revision))) {
    throw new ProblemError(ErrorCode.StaleRevision, 'The policy changed meanwhile; read it again and retry.');
  }
  await recordAudit(deps, caller, {
    action: AuditAction.PreviewPolicySaved,
    project,
    target: repository,
    data: { revision: policy.revision, enabled: policy.enabled, trigger_label: policy.trigger_label },
  });
  await deps.jobs
    .send({ kind: 'forge-repository', project, repository })
    .catch((error: unknown) =>
      deps.log({ level: 'warn', msg: 'forge job not enqueued', error: String(error) }),
    );
  return { created: current === null, policy };
}

/** Every policy of the installation, all pages (the reconciliation's and an installation event's list). */
export async function allPolicies(deps: Pick<ForgeDeps, 'forgeStore'>): Promise<PreviewPolicy[]> {
  const policies: PreviewPolicy[] = [];
  let after: string | null = null;
  do {
    const page = await deps.forgeStore.listPolicies({ limit: 200, after });
    policies.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return policies;
}
