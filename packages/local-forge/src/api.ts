// The subset of GitHub's REST API that a GitHub App owning pull-request previews calls, with
// GitHub's authentication rules, paging, conditional requests, rate-limit headers and error bodies.
// This file puts GitHub's front (middleware, errors) before the sub-apps in api/, one per resource.

import { Hono } from 'hono';
import { appInstallations } from './api/app-installations.ts';
import { checkRuns } from './api/check-runs.ts';
import { comments } from './api/comments.ts';
import type { ApiDeps, Env } from './api/context.ts';
import { deployments } from './api/deployments.ts';
import { hookDeliveries } from './api/hook-deliveries.ts';
import { installationAccess } from './api/installation-access.ts';
import { issues } from './api/issues.ts';
import { conditionalRequests, errorResponse, gitHubFront } from './api/middleware.ts';
import { pulls } from './api/pulls.ts';
import { repositories } from './api/repositories.ts';
import { statuses } from './api/statuses.ts';
import { notFound } from './errors.ts';

export function createApi(deps: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();
  app.onError(errorResponse);
  app.notFound((c) => c.json(notFound().body(), 404));
  app.use('*', gitHubFront(deps.auth, deps.rateLimits, deps.requests));
  app.use('*', conditionalRequests);
  for (const routes of [
    appInstallations,
    installationAccess,
    hookDeliveries,
    repositories,
    pulls,
    issues,
    comments,
    checkRuns,
    statuses,
    deployments,
  ]) {
    app.route('/', routes(deps));
  }
  return app;
}
