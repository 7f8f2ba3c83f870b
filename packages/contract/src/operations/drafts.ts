/** Onboarding drafts (spec 2.6, 4.1 rule 4): the caller's own draft of a project, guarded by revision. */
import { Drafts, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { projectParam } from '../params.ts';
import { integerParam } from '../query.ts';

const tag = 'drafts';
const path = '/v1/projects/{project}/onboarding-draft';
const params = { project: projectParam };

export const draftOperations = {
  getOnboardingDraft: {
    method: 'get',
    path,
    permission: 'draft:write',
    summary: "Resume the caller's onboarding draft of a project.",
    tag,
    params,
    responses: { 200: { description: 'The draft.', json: Drafts.DraftView } },
    errors: [ErrorCode.NotFound],
  },

  saveOnboardingDraft: {
    method: 'put',
    path,
    permission: 'draft:write',
    summary:
      'Save the draft at its current revision (0 creates); never environment values, ConfigMap values, credentials or messaging configuration.',
    tag,
    params,
    body: Drafts.DraftBody,
    responses: { 200: { description: 'The stored draft at its next revision.', json: Drafts.DraftView } },
    errors: [
      ErrorCode.MalformedJson,
      ErrorCode.ValidationFailed,
      ErrorCode.DraftContentRefused,
      ErrorCode.StaleRevision,
      ErrorCode.NotFound,
      ErrorCode.UnsupportedMediaType,
      ErrorCode.PayloadTooLarge,
    ],
  },

  discardOnboardingDraft: {
    method: 'delete',
    path,
    permission: 'draft:write',
    summary: 'Discard the draft; `revision` must be the current one.',
    tag,
    params,
    query: v.object({
      revision: integerParam({ min: 0, max: 2 ** 31 - 1 }, 'The current revision of the draft (required).'),
    }),
    responses: { 204: { description: 'Discarded.' } },
    errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound, ErrorCode.StaleRevision],
  },
} as const satisfies Record<string, ApiOperation>;
