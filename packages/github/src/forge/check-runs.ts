// The preview check run on a pull request's head commit: created once, then updated by its id.

import type { Forge } from '@svc/core';
import { call } from './calls.ts';
import type { GitHubContext } from './context.ts';
import { requireInstalled } from './installations.ts';
import { split } from './params.ts';

type CheckRunInput = Parameters<Forge.ForgePort['upsertCheckRun']>[2];

export async function upsertCheckRun(
  context: GitHubContext,
  repository: string,
  id: number | null,
  run: CheckRunInput,
): Promise<number> {
  const { octokit, id: installation } = await requireInstalled(context, repository);
  const fields = {
    status: run.status,
    ...(run.conclusion ? { conclusion: run.conclusion } : {}),
    ...(run.details_url ? { details_url: run.details_url } : {}),
    output: { title: run.title, summary: run.summary },
  };
  if (id !== null) {
    await call(context, installation, () =>
      octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        ...split(repository),
        check_run_id: id,
        ...fields,
      }),
    );
    return id;
  }
  const { data } = await call(context, installation, () =>
    octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...split(repository),
      name: 'preview',
      head_sha: run.head_sha,
      ...fields,
    }),
  );
  return Number(data.id);
}
