// A preview as a GitHub Deployment of the head commit: a transient, non-production environment per
// branch, statuses as the preview moves. No merge and no status check: the deployment records what
// the service already runs, whatever the commit's other checks say.

import type { Forge } from '@svc/core';
import { call } from './calls.ts';
import type { GitHubContext } from './context.ts';
import { requireInstalled } from './installations.ts';
import { split } from './params.ts';

export async function createDeployment(
  context: GitHubContext,
  repository: string,
  deployment: Forge.DeploymentInput,
): Promise<number> {
  const { octokit, id: installation } = await requireInstalled(context, repository);
  const { data } = await call(context, installation, () =>
    octokit.request('POST /repos/{owner}/{repo}/deployments', {
      ...split(repository),
      ref: deployment.sha,
      environment: deployment.environment,
      description: deployment.description,
      transient_environment: true,
      production_environment: false,
      auto_merge: false,
      required_contexts: [],
    }),
  );
  if (!('id' in data))
    throw new Error(`GitHub merged instead of deploying ${deployment.sha}: ${data.message ?? ''}`);
  return Number(data.id);
}

export async function createDeploymentStatus(
  context: GitHubContext,
  repository: string,
  deploymentId: number,
  status: Forge.DeploymentStatusInput,
): Promise<void> {
  const { octokit, id: installation } = await requireInstalled(context, repository);
  await call(context, installation, () =>
    octokit.request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
      ...split(repository),
      deployment_id: deploymentId,
      state: status.state,
      description: status.description,
      ...(status.environment_url ? { environment_url: status.environment_url } : {}),
      ...(status.log_url ? { log_url: status.log_url } : {}),
      auto_inactive: false,
    }),
  );
}
