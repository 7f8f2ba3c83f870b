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
