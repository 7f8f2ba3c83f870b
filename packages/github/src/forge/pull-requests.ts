// Pull requests, read with conditional requests: one polled while its preview deploys mostly
// answers 304, which is free.

import type { Forge } from '@svc/core';
import { conditionalGet } from './calls.ts';
import type { GitHubContext } from './context.ts';
import { forgetRepository, installed } from './installations.ts';
import { isStatus } from './octokit.ts';
import { nextPage, split } from './params.ts';

interface GitHubPull {
  number: number;
  state: string;
  labels: { name?: string }[];
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  base: { repo: { full_name: string } };
}

function pullRequest(repository: string, pull: GitHubPull): Forge.PullRequest {
  return {
    repository,
    number: pull.number,
    open: pull.state === 'open',
    labels: pull.labels.flatMap((label) => (label.name ? [label.name] : [])),
    head_sha: pull.head.sha,
    head_ref: pull.head.ref,
    // A deleted fork has no head repository: it is still a fork.
    fork: pull.head.repo?.full_name.toLowerCase() !== pull.base.repo.full_name.toLowerCase(),
  };
}

export async function getPullRequest(
  context: GitHubContext,
  repository: string,
  number: number,
): Promise<Forge.PullRequest | null> {
  const found = await installed(context, repository);
  if (!found) return null;
  try {
    const { data } = await conditionalGet(context, found, 'GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...split(repository),
      pull_number: number,
    });
    return pullRequest(repository, data as GitHubPull);
  } catch (error) {
    if (isStatus(error, 404)) {
      forgetRepository(context, repository);
      return null;
    }
    throw error;
  }
}

export async function listOpenPullRequests(
  context: GitHubContext,
  repository: string,
  label: string,
): Promise<Forge.PullRequest[]> {
  const found = await installed(context, repository);
  if (!found) return [];
  const pulls: Forge.PullRequest[] = [];
  try {
    for (let page: number | null = 1; page !== null; ) {
      const { data, link } = await conditionalGet(context, found, 'GET /repos/{owner}/{repo}/pulls', {
        ...split(repository),
        state: 'open',
        per_page: 100,
        page,
      });
      pulls.push(...(data as GitHubPull[]).map((pull) => pullRequest(repository, pull)));
      page = nextPage(link);
    }
  } catch (error) {
    // The repository left the installation: none of its pull requests can be seen any more.
    if (!isStatus(error, 404)) throw error;
    forgetRepository(context, repository);
    return [];
  }
  return pulls.filter((pull) => pull.labels.includes(label));
}
