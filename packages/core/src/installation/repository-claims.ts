/**
 * The installation check's look at the preview policies: every repository belongs to one project.
 * A save refuses a repository another project holds; policies saved before repositories were held
 * can still name one repository in several projects, each posting a check run and a comment on its
 * pull requests.
 */

import { CheckStatus } from '../checks/model.ts';
import { allPolicies } from '../forge/policies.ts';
import type { ForgeStore } from '../forge/ports.ts';
import type { Outcome } from './probes.ts';

export async function repositoryClaimsVerdict(
  forgeStore: Pick<ForgeStore, 'listPolicies' | 'repositoryOwner'>,
): Promise<Outcome> {
  const byRepository = new Map<string, Set<string>>();
  for (const policy of await allPolicies({ forgeStore })) {
    const key = policy.repository.toLowerCase();
    byRepository.set(key, (byRepository.get(key) ?? new Set()).add(policy.project));
  }
  const shared = await Promise.all(
    [...byRepository]
      .filter(([, projects]) => projects.size > 1)
      .map(async ([repository, projects]) => ({
        repository,
        projects: [...projects].sort(),
        owner: await forgeStore.repositoryOwner(repository),
      })),
  );
  const evidence = { repositories: byRepository.size, shared };
  if (shared.length === 0) {
    return {
      status: CheckStatus.Passed,
      message: 'every repository with a preview policy belongs to one project',
      evidence,
    };
  }
  const message = shared
    .map(({ repository, projects, owner }) => {
      const named = projects.map((p) => `"${p}"`).join(', ');
      return owner
        ? `repository ${repository} has preview policies in projects ${named}; it belongs to "${owner}", so the others' policies are inert: delete them`
        : `repository ${repository} has preview policies in projects ${named}, and each acts on its pull requests: delete all but the owning project's`;
    })
    .join('; ');
  return { status: CheckStatus.Failed, message, evidence };
}
