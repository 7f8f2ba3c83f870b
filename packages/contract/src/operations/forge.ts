/** Pull-request previews: the app's health and discovery, repository policies, previews and their controls. */
import { ErrorCode, Forge } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import {
  installationParam,
  previewParam,
  projectParam,
  repositoryParam as repositorySegment,
} from '../params.ts';
import { integerParam, nameParam, projectFilter, repositoryParam } from '../query.ts';
import { list, read, write } from '../shapes.ts';

const tag = 'forge';
const pageNumber = v.object({
  page: v.optional(integerParam({ min: 1, max: 999_999 }, 'Page number, from 1.')),
});
const byPreview = { id: previewParam };
const policyPath = '/v1/projects/{project}/repositories/{repository}/preview-policy';
const byRepository = { project: projectParam, repository: repositorySegment };

export const forgeOperations = {
  getForgeStatus: {
    method: 'get',
    path: '/v1/forge/status',
    permission: 'forge:read',
    summary: 'App configuration (present, valid key), webhook health, reconciliation and rate-limit budgets.',
    tag,
    responses: { 200: { description: 'Forge health; never a secret.', json: Forge.ForgeStatusView } },
  },

  listForgeInstallations: {
    method: 'get',
    path: '/v1/forge/installations',
    permission: 'forge:read',
    summary: "The app's installations.",
    tag,
    query: pageNumber,
    responses: { 200: { description: 'A page of installations.', json: Forge.InstallationPage } },
    errors: [ErrorCode.ForgeNotConfigured],
  },

  listForgeInstallationRepositories: {
    method: 'get',
    path: '/v1/forge/installations/{id}/repositories',
    permission: 'forge:read',
    summary: 'The repositories an installation can reach.',
    tag,
    params: { id: installationParam },
    query: pageNumber,
    responses: { 200: { description: 'A page of repositories.', json: Forge.RepositoryPage } },
    errors: [ErrorCode.ForgeNotConfigured],
  },

  listPreviewPolicies: list(
    {
      path: '/v1/forge/preview-policies',
      permission: 'policy:read',
      summary: 'Repository preview policies the caller may read.',
      tag,
    },
    { description: 'A page of policies.', json: Forge.PreviewPolicyList },
  ),

  listForgeDeliveries: list(
    {
      path: '/v1/forge/deliveries',
      permission: 'preview:read',
      summary:
        'Webhook deliveries, newest first: event, action, repository, processing state, error and times (never the payload).',
      tag,
      // A project the caller may not read is not found.
      errors: [ErrorCode.NotFound],
    },
    { description: 'A page of deliveries.', json: Forge.DeliveryList },
    {
      project: v.optional(nameParam("Only deliveries concerning a repository this project's policies name.")),
      repository: v.optional(repositoryParam('Only deliveries concerning owner/name.')),
    },
  ),

  getPreviewPolicy: read(
    {
      path: policyPath,
      permission: 'policy:read',
      summary: "A repository's preview policy ({repository} is owner%2Fname).",
      tag,
      params: byRepository,
    },
    { description: 'The policy.', json: Forge.PreviewPolicyView },
  ),

  putPreviewPolicy: {
    method: 'put',
    path: policyPath,
    permission: 'policy:write',
    summary: "Configure a repository's preview policy; its pull requests converge to it.",
    tag,
    params: byRepository,
    body: Forge.PreviewPolicyBody,
    responses: {
      200: { description: 'Updated.', json: Forge.PreviewPolicyView },
      201: { description: 'Created.', json: Forge.PreviewPolicyView },
    },
    errors: [ErrorCode.UnknownReference, ErrorCode.StaleRevision, ErrorCode.RepositoryTaken],
  },

  deletePreviewPolicy: write(
    'delete',
    {
      path: policyPath,
      permission: 'policy:write',
      summary:
        "Delete a repository's preview policy: its previews in the project stop, and the project gives the repository up, so another project may claim it.",
      tag,
      params: byRepository,
    },
    204,
    { description: 'Deleted; the repository is free.' },
  ),

  listForgePreviews: list(
    {
      path: '/v1/forge/previews',
      permission: 'preview:read',
      summary: 'Pull-request previews, newest first.',
      tag,
      // A project the caller may not read is not found.
      errors: [ErrorCode.NotFound],
    },
    { description: 'A page of previews.', json: Forge.PreviewList },
    { project: projectFilter },
  ),

  getForgePreview: read(
    {
      path: '/v1/forge/previews/{id}',
      permission: 'preview:read',
      summary: 'Lifecycle state, pull request, head commit, builds, composition, URL and last error.',
      tag,
      params: byPreview,
    },
    { description: 'The preview.', json: Forge.PreviewView },
  ),

  stopForgePreview: write(
    'post',
    {
      path: '/v1/forge/previews/{id}/stop',
      permission: 'preview:control',
      summary: 'Suppress automation and request cleanup (asynchronous).',
      tag,
      params: byPreview,
    },
    200,
    { description: 'Accepted; cleanup follows.', json: Forge.PreviewView },
  ),

  restartForgePreview: write(
    'post',
    {
      path: '/v1/forge/previews/{id}/restart',
      permission: 'preview:control',
      summary:
        'A fresh lifecycle (new URL and TTL) once the old resources are cleaned up; needs an open labelled pull request and an enabled policy.',
      tag,
      params: byPreview,
      errors: [ErrorCode.PreviewNotRestartable, ErrorCode.ForgeNotConfigured],
    },
    200,
    { description: 'Accepted; the restart follows.', json: Forge.PreviewView },
  ),
} as const satisfies Record<string, ApiOperation>;
