/**
 * The forge port on GitHub, as a GitHub App: `@octokit/auth-app` signs app JWTs and trades them for
 * installation tokens (cached until they expire), `@octokit/core` with the paginate, throttling and
 * retry plugins makes the calls. A rate limit is never waited out here: the throttling plugin is
 * told not to retry, and the call throws `ForgeRateLimitedError` so the worker defers the job.
 * The port's methods live in forge/, one file per flow, over one context per app.
 */
import type { Forge } from '@svc/core';
import { checkApp, getInstallation, listInstallations, listRepositories } from './forge/app.ts';
import { upsertCheckRun } from './forge/check-runs.ts';
import { upsertComment } from './forge/comments.ts';
import { gitHubContext } from './forge/context.ts';
import { deliveries, redeliver } from './forge/deliveries.ts';
import { createDeployment, createDeploymentStatus } from './forge/deployments.ts';
import { forgetRepositories } from './forge/installations.ts';
import { getPullRequest, listOpenPullRequests } from './forge/pull-requests.ts';
import type { GitHubAppSettings } from './settings.ts';

export function gitHubForge(settings: GitHubAppSettings): Forge.ForgePort {
  const context = gitHubContext(settings);
  return {
    getPullRequest: (repository, number) => getPullRequest(context, repository, number),
    listOpenPullRequests: (repository, label) => listOpenPullRequests(context, repository, label),
    upsertComment: (repository, number, comment) => upsertComment(context, repository, number, comment),
    upsertCheckRun: (repository, id, run) => upsertCheckRun(context, repository, id, run),
    createDeployment: (repository, deployment) => createDeployment(context, repository, deployment),
    createDeploymentStatus: (repository, id, status) =>
      createDeploymentStatus(context, repository, id, status),
    listInstallations: (page) => listInstallations(context, page),
    getInstallation: (id) => getInstallation(context, id),
    listRepositories: (installationId, page) => listRepositories(context, installationId, page),
    checkApp: () => checkApp(context),
    deliveries: (since) => deliveries(context, since),
    redeliver: (attemptId) => redeliver(context, attemptId),
    forgetRepositories: (repositories) => forgetRepositories(context, repositories),
    budgets: () => [...context.budgets.values()],
  };
}
