/**
 * The forge port for a process that reaches GitHub on a few paths only (the API, the webhook):
 * Octokit and its throttling plugin's `bottleneck` (about 0.12 MB of a cold start) are imported on
 * the first call to GitHub, so a cold start that serves other routes never loads them. The Lambda
 * build splits the import into a chunk of its own (infra/settings.ts `bundling`).
 */
import type { Forge } from '@svc/core';
import type { GitHubAppSettings } from './settings.ts';

export function lazyForge(settings: GitHubAppSettings): Forge.ForgePort {
  let loaded: Forge.ForgePort | undefined;
  let loading: Promise<Forge.ForgePort> | undefined;
  const forge = () => {
    loading ??= import('./forge.ts').then((module) => {
      loaded = module.gitHubForge(settings);
      return loaded;
    });
    return loading;
  };
  return {
    getPullRequest: async (repository, number) => (await forge()).getPullRequest(repository, number),
    listOpenPullRequests: async (repository, label) =>
      (await forge()).listOpenPullRequests(repository, label),
    upsertComment: async (repository, number, comment) =>
      (await forge()).upsertComment(repository, number, comment),
    upsertCheckRun: async (repository, id, run) => (await forge()).upsertCheckRun(repository, id, run),
    createDeployment: async (repository, deployment) =>
      (await forge()).createDeployment(repository, deployment),
    createDeploymentStatus: async (repository, id, status) =>
      (await forge()).createDeploymentStatus(repository, id, status),
    listInstallations: async (page) => (await forge()).listInstallations(page),
    getInstallation: async (id) => (await forge()).getInstallation(id),
    listRepositories: async (installationId, page) => (await forge()).listRepositories(installationId, page),
    checkApp: async () => (await forge()).checkApp(),
    deliveries: async (since) => (await forge()).deliveries(since),
    redeliver: async (attemptId) => (await forge()).redeliver(attemptId),
    // Before the first call nothing was cached and nothing observed: there is nothing to forget or report.
    forgetRepositories: (repositories) => loaded?.forgetRepositories(repositories),
    budgets: () => loaded?.budgets() ?? [],
  };
}
