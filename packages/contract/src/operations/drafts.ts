/** Onboarding drafts (spec 2.6, 4.1 rule 4): the caller's own draft of a project, guarded by revision. */
import { Drafts, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { projectParam } from '../params.ts';
import { integerParam } from '../query.ts';
import { read, write } from '../shapes.ts';

const tag = 'drafts';
const path = '/v1/projects/{project}/onboarding-draft';
const params = { project: projectParam };

export const draftOperations = {
  getOnboardingDraft: read(
    {
      path,
      permission: 'draft:write',
      summary: "Resume the caller's onboarding draft of a project.",
      tag,
      params,
    },
    { description: 'The draft.', json: Drafts.DraftView },
  ),

  saveOnboardingDraft: write(
    'put',
    {
      path,
      permission: 'draft:write',
      summary:
        'Save the draft at its current revision (0 creates); never environment values, ConfigMap values, credentials or messaging configuration.',
      tag,
      params,
      body: Drafts.DraftBody,
      errors: [ErrorCode.DraftContentRefused, ErrorCode.StaleRevision],
    },
    200,
    { description: 'The stored draft at its next revision.', json: Drafts.DraftView },
  ),

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
    errors: [ErrorCode.StaleRevision],
  },
} as const satisfies Record<string, ApiOperation>;
