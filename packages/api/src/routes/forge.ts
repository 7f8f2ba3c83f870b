import { ErrorCode, Forge } from '@svc/core';
import type { Context } from 'hono';
import type { AppEnv } from '../env.ts';
import type { Registry } from '../registry.ts';
import { nameQuery, pageQuery, readJson } from '../request.ts';
import { pageParams, pathName, projectName } from './params.ts';

const tag = 'forge';

export interface ForgeRouteDeps extends Forge.ForgeDeps {
  forgeConfiguration: Forge.ForgeConfiguration;
}

const pageParam = [
  { name: 'page', description: 'Page number, from 1.', schema: { type: 'integer', minimum: 1 } },
];
/** POSTs without a body still refuse a body that is not JSON, as every POST does. */
const bodilessPost = [ErrorCode.UnsupportedMediaType, ErrorCode.PayloadTooLarge];
const previewId = (c: Context<AppEnv>) => pathName(c, 'id', 'preview', 40);
/** `owner/name`, sent URL-encoded (`owner%2Fname`) as one path segment. */
const repositoryParam = (c: Context<AppEnv>) => c.req.param('repository') ?? '';

/** Pull-request previews: the app's health and discovery, repository policies, previews and their controls. */
export function forgeRoutes(registry: Registry, deps: ForgeRouteDeps): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/forge/status',
      operationId: 'getForgeStatus',
      permission: 'forge:read',
      summary:
        'App configuration (present, valid key), webhook health, reconciliation and rate-limit budgets.',
      tag,
      responses: { 200: { description: 'Forge health; never a secret.', schema: Forge.ForgeStatusView } },
    },
    async (c) => c.json(await Forge.status(deps, deps.forgeConfiguration)),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/forge/installations',
      operationId: 'listForgeInstallations',
      permission: 'forge:read',
      summary: "The app's installations.",
      tag,
      query: pageParam,
      responses: { 200: { description: 'A page of installations.', schema: Forge.InstallationPage } },
      errors: [ErrorCode.InvalidQuery, ErrorCode.ForgeNotConfigured],
    },
    async (c) => c.json(await Forge.listInstallations(deps, c.req.query())),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/forge/installations/{id}/repositories',
      operationId: 'listForgeInstallationRepositories',
      permission: 'forge:read',
      summary: 'The repositories an installation can reach.',
      tag,
      query: pageParam,
      responses: { 200: { description: 'A page of repositories.', schema: Forge.RepositoryPage } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery, ErrorCode.ForgeNotConfigured],
    },
    async (c) => c.json(await Forge.listRepositories(deps, c.req.param('id') ?? '', c.req.query())),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/forge/preview-policies',
      operationId: 'listPreviewPolicies',
      permission: 'policy:read',
      summary: 'Repository preview policies the caller may read.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of policies.', schema: Forge.PreviewPolicyList } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await Forge.listPolicies(deps, c.get('identity'), pageQuery(c))),
  );

  deliveryRoutes(registry, deps);

  const policyPath = '/v1/projects/{project}/repositories/{repository}/preview-policy';
  registry.add(
    {
      method: 'get',
      path: policyPath,
      operationId: 'getPreviewPolicy',
      permission: 'policy:read',
      summary: "A repository's preview policy ({repository} is owner%2Fname).",
      tag,
      responses: { 200: { description: 'The policy.', schema: Forge.PreviewPolicyView } },
      errors: [ErrorCode.NotFound],
    },
    async (c) => c.json(await Forge.getPolicy(deps, c.get('identity'), projectName(c), repositoryParam(c))),
  );

  registry.add(
    {
      method: 'put',
      path: policyPath,
      operationId: 'putPreviewPolicy',
      permission: 'policy:write',
      summary: "Configure a repository's preview policy; its pull requests converge to it.",
      tag,
      body: Forge.PreviewPolicyBody,
      responses: {
        200: { description: 'Updated.', schema: Forge.PreviewPolicyView },
        201: { description: 'Created.', schema: Forge.PreviewPolicyView },
      },
      errors: [
        ErrorCode.NotFound,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnknownReference,
        ErrorCode.StaleRevision,
        ErrorCode.UnsupportedMediaType,
      ],
    },
    async (c) => {
      const result = await Forge.putPolicy(
        deps,
        c.get('identity'),
        projectName(c),
        repositoryParam(c),
        await readJson(c),
      );
      return c.json(result.policy, result.created ? 201 : 200);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/forge/previews',
      operationId: 'listForgePreviews',
      permission: 'preview:read',
      summary: 'Pull-request previews, newest first.',
      tag,
      query: [
        { name: 'project', description: 'Only this project.', schema: { type: 'string' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of previews.', schema: Forge.PreviewList } },
      errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound],
    },
    async (c) =>
      c.json(
        await Forge.listPreviews(deps, c.get('identity'), { project: nameQuery(c, 'project') }, pageQuery(c)),
      ),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/forge/previews/{id}',
      operationId: 'getForgePreview',
      permission: 'preview:read',
      summary: 'Lifecycle state, pull request, head commit, builds, composition, URL and last error.',
      tag,
      responses: { 200: { description: 'The preview.', schema: Forge.PreviewView } },
      errors: [ErrorCode.NotFound],
    },
    async (c) => c.json(await Forge.getPreview(deps, c.get('identity'), previewId(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/forge/previews/{id}/stop',
      operationId: 'stopForgePreview',
      permission: 'preview:control',
      summary: 'Suppress automation and request cleanup (asynchronous).',
      tag,
      responses: { 200: { description: 'Accepted; cleanup follows.', schema: Forge.PreviewView } },
      errors: [ErrorCode.NotFound, ...bodilessPost],
    },
    async (c) => c.json(await Forge.stop(deps, c.get('identity'), previewId(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/forge/previews/{id}/restart',
      operationId: 'restartForgePreview',
      permission: 'preview:control',
      summary:
        'A fresh lifecycle (new URL and TTL) once the old resources are cleaned up; needs an open labelled pull request and an enabled policy.',
      tag,
      responses: { 200: { description: 'Accepted; the restart follows.', schema: Forge.PreviewView } },
      errors: [
        ErrorCode.NotFound,
        ErrorCode.PreviewNotRestartable,
        ErrorCode.ForgeNotConfigured,
        ...bodilessPost,
      ],
    },
    async (c) => c.json(await Forge.restart(deps, c.get('identity'), previewId(c))),
  );
}

/** What the forge sent and what became of it: the operator's answer to "why no preview?". */
function deliveryRoutes(registry: Registry, deps: ForgeRouteDeps): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/forge/deliveries',
      operationId: 'listForgeDeliveries',
      permission: 'preview:read',
      summary:
        'Webhook deliveries, newest first: event, action, repository, processing state, error and times (never the payload).',
      tag,
      query: [
        {
          name: 'project',
          description: "Only deliveries concerning a repository this project's policies name.",
          schema: { type: 'string' },
        },
        {
          name: 'repository',
          description: 'Only deliveries concerning owner/name.',
          schema: { type: 'string' },
        },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of deliveries.', schema: Forge.DeliveryList } },
      errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound],
    },
    async (c) => c.json(await Forge.listDeliveries(deps, c.get('identity'), c.req.query(), pageQuery(c))),
  );
}
