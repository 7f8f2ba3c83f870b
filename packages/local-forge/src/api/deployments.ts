// Deployments and their statuses, as GitHub's REST API keeps them: created for a ref, checked
// against the commit's statuses, listed newest first, deleted only once inactive. The forge keeps
// no commit graph, so a ref is never behind its default branch and `auto_merge` never merges.

import { Hono } from 'hono';
import { GitHubError, invalidRequest, notFound } from '../errors.ts';
import { numberedPage } from '../paging.ts';
import {
  DEPLOYMENT_STATES,
  type DeploymentRecord,
  type DeploymentStatusRecord,
  type RepositoryRecord,
  timestamp,
} from '../state.ts';
import type { ForgeStore } from '../store.ts';
import { type ApiDeps, type Ctx, type Env, type Level, repositoryFor } from './context.ts';
import { integer, jsonBody, oneOf, optionalString, requiredString } from './input.ts';
import { paged } from './listing.ts';

function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean')
    throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(value)} is not a boolean.`);
  return value;
}

function requiredContexts(body: Record<string, unknown>): string[] | undefined {
  const value = body.required_contexts;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw invalidRequest(
      `For 'properties/required_contexts', ${JSON.stringify(value)} is not an array of strings.`,
    );
  }
  return value as string[];
}

function payloadOf(body: Record<string, unknown>): Record<string, unknown> | string {
  const value = body.payload ?? {};
  if (typeof value === 'string' || (typeof value === 'object' && !Array.isArray(value))) {
    return value as Record<string, unknown> | string;
  }
  throw invalidRequest(`For 'properties/payload', ${JSON.stringify(value)} is not an object or a string.`);
}

/**
 * GitHub's check before it creates a deployment: the latest commit status of each required context
 * (by default every context the commit has) is `success`; an empty list skips the check.
 */
function refuseFailedContexts(
  store: ForgeStore,
  repository: RepositoryRecord,
  sha: string,
  ref: string,
  required: string[] | undefined,
): void {
  const latest = new Map<string, string>();
  for (const status of store.state.statuses) {
    if (status.repositoryId === repository.id && status.sha === sha) latest.set(status.context, status.state);
  }
  const contexts = (required ?? [...latest.keys()]).map((context) => ({
    context,
    state: latest.get(context) ?? 'missing',
  }));
  if (contexts.every((c) => c.state === 'success')) return;
  throw new GitHubError(409, `Conflict: Commit status checks failed for ${ref}.`, undefined, [
    { resource: 'Deployment', field: 'required_contexts', code: 'invalid', contexts },
  ]);
}

function deploymentFor(store: ForgeStore, c: Ctx, level: Level): DeploymentRecord {
  const repository = repositoryFor(store, c, level, 'deployments');
  const id = integer(c.req.param('deployment_id'));
  const deployment = store.state.deployments.find((d) => d.id === id && d.repositoryId === repository.id);
  if (!deployment) throw notFound();
  return deployment;
}

function latestState(store: ForgeStore, deployment: DeploymentRecord): string | undefined {
  return store.state.deploymentStatuses.findLast((s) => s.deploymentId === deployment.id)?.state;
}

/**
 * A `success` makes every earlier deployment of the same environment in the repository inactive,
 * unless it is transient or production (GitHub's `auto_inactive`, on by default).
 */
function inactivateEarlier(store: ForgeStore, deployment: DeploymentRecord, creator: string): void {
  for (const earlier of store.state.deployments) {
    const sameEnvironment =
      earlier.repositoryId === deployment.repositoryId && earlier.environment === deployment.environment;
    if (!sameEnvironment || earlier.id >= deployment.id) continue;
    if (earlier.transientEnvironment || earlier.productionEnvironment) continue;
    if (latestState(store, earlier) === 'inactive') continue;
    store.state.deploymentStatuses.push({
      id: store.nextId(),
      deploymentId: earlier.id,
      state: 'inactive',
      description: '',
      environment: earlier.environment,
      environmentUrl: '',
      logUrl: '',
      creator,
      createdAt: timestamp(),
    });
  }
}

function createStatus(
  store: ForgeStore,
  deployment: DeploymentRecord,
  body: Record<string, unknown>,
  creator: string,
): DeploymentStatusRecord {
  const state = oneOf('state', body.state, DEPLOYMENT_STATES);
  const description = optionalString(body, 'description') ?? '';
  if (description.length > 140) throw invalidRequest('description is too long (maximum is 140 characters)');
  const environment = optionalString(body, 'environment');
  const autoInactive = optionalBoolean(body, 'auto_inactive') ?? true;
  if (environment) deployment.environment = environment;
  deployment.updatedAt = timestamp();
  const status: DeploymentStatusRecord = {
    id: store.nextId(),
    deploymentId: deployment.id,
    state,
    description,
    environment: deployment.environment,
    environmentUrl: optionalString(body, 'environment_url') ?? '',
    logUrl: optionalString(body, 'log_url') ?? optionalString(body, 'target_url') ?? '',
    creator,
    createdAt: timestamp(),
  };
  if (state === 'success' && autoInactive) inactivateEarlier(store, deployment, creator);
  store.state.deploymentStatuses.push(status);
  return status;
}

export function deployments({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/repos/:owner/:repo/deployments', async (c) => {
    const repository = repositoryFor(store, c, 'write', 'deployments');
    const body = await jsonBody(c);
    const ref = requiredString(body, 'ref');
    const sha = store.resolveRef(repository, ref);
    if (!sha) throw new GitHubError(422, `No ref found for: ${ref}`);
    const environment = optionalString(body, 'environment') ?? 'production';
    optionalBoolean(body, 'auto_merge'); // checked, never acted on: see the top of this file
    refuseFailedContexts(store, repository, sha, ref, requiredContexts(body));
    const now = timestamp();
    const deployment: DeploymentRecord = {
      id: store.nextId(),
      repositoryId: repository.id,
      sha,
      ref,
      task: optionalString(body, 'task') ?? 'deploy',
      payload: payloadOf(body),
      environment,
      originalEnvironment: environment,
      description: optionalString(body, 'description') ?? '',
      transientEnvironment: optionalBoolean(body, 'transient_environment') ?? false,
      productionEnvironment: optionalBoolean(body, 'production_environment') ?? environment === 'production',
      creator: render.botLogin(),
      createdAt: now,
      updatedAt: now,
    };
    store.state.deployments.push(deployment);
    store.changed();
    return c.json(render.deployment(deployment), 201);
  });

  app.get('/repos/:owner/:repo/deployments', (c) => {
    const repository = repositoryFor(store, c, 'read', 'deployments');
    const url = new URL(c.req.url);
    const filters = (['sha', 'ref', 'task', 'environment'] as const).flatMap((field) => {
      const value = url.searchParams.get(field);
      return value === null ? [] : [[field, value] as const];
    });
    const matching = store.state.deployments
      .filter(
        (d) => d.repositoryId === repository.id && filters.every(([field, value]) => d[field] === value),
      )
      .reverse();
    const page = numberedPage(matching, url);
    return paged(
      c,
      page,
      page.items.map((d) => render.deployment(d)),
    );
  });

  app.get('/repos/:owner/:repo/deployments/:deployment_id', (c) =>
    c.json(render.deployment(deploymentFor(store, c, 'read'))),
  );

  app.delete('/repos/:owner/:repo/deployments/:deployment_id', (c) => {
    const deployment = deploymentFor(store, c, 'write');
    const others = store.state.deployments.filter(
      (d) =>
        d.id !== deployment.id &&
        d.repositoryId === deployment.repositoryId &&
        d.environment === deployment.environment,
    );
    if (latestState(store, deployment) !== 'inactive' && others.length > 0) {
      throw new GitHubError(
        422,
        'We cannot delete an active deployment unless it is the only deployment in a given environment.',
      );
    }
    store.state.deployments = store.state.deployments.filter((d) => d.id !== deployment.id);
    store.state.deploymentStatuses = store.state.deploymentStatuses.filter(
      (s) => s.deploymentId !== deployment.id,
    );
    store.changed();
    return c.body(null, 204);
  });

  app.post('/repos/:owner/:repo/deployments/:deployment_id/statuses', async (c) => {
    const deployment = deploymentFor(store, c, 'write');
    const status = createStatus(store, deployment, await jsonBody(c), render.botLogin());
    store.changed();
    return c.json(render.deploymentStatus(status), 201);
  });

  app.get('/repos/:owner/:repo/deployments/:deployment_id/statuses', (c) => {
    const deployment = deploymentFor(store, c, 'read');
    const newestFirst = store.state.deploymentStatuses
      .filter((s) => s.deploymentId === deployment.id)
      .reverse();
    const page = numberedPage(newestFirst, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((s) => render.deploymentStatus(s)),
    );
  });

  app.get('/repos/:owner/:repo/deployments/:deployment_id/statuses/:status_id', (c) => {
    const deployment = deploymentFor(store, c, 'read');
    const id = integer(c.req.param('status_id'));
    const status = store.state.deploymentStatuses.find(
      (s) => s.id === id && s.deploymentId === deployment.id,
    );
    if (!status) throw notFound();
    return c.json(render.deploymentStatus(status));
  });

  return app;
}
