/** The local forge as the GitHub App sees it: a client signed in as the seeded installation. */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import type { LocalForge } from '@svc/local-forge';

export function installationClient(forge: LocalForge): Octokit {
  const installationId = forge.state().installations[0]?.id as number;
  return new Octokit({
    baseUrl: forge.url,
    authStrategy: createAppAuth,
    auth: { appId: forge.appId, privateKey: forge.privateKey, installationId },
  });
}

/** A commit's deployments as GitHub lists them, newest first, each with its statuses' states (newest first). */
export async function deploymentsOf(forge: LocalForge, repository: string, sha: string) {
  const octokit = installationClient(forge);
  const [owner = '', repo = ''] = repository.split('/');
  const { data } = await octokit.request('GET /repos/{owner}/{repo}/deployments', { owner, repo, sha });
  return Promise.all(
    data.map(async (deployment) => {
      const statuses = await octokit.request(
        'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
        { owner, repo, deployment_id: Number(deployment.id) },
      );
      return { ...deployment, states: statuses.data.map((s) => s.state), newest: statuses.data[0] };
    }),
  );
}

/** Polls until the newest deployment of `sha` has a status in `state`: feedback follows the preview's state. */
export async function deployedAs(forge: LocalForge, repository: string, sha: string, state: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const deployments = await deploymentsOf(forge, repository, sha);
    if (deployments[0]?.newest?.state === state) return deployments;
    if (Date.now() > deadline) throw new Error(`deployments of ${sha}: ${JSON.stringify(deployments)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
