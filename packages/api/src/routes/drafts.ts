import { Drafts, ErrorCode } from '@svc/core';
import type { Registry } from '../registry.ts';
import { integerQuery, invalidQuery, readJson } from '../request.ts';
import { projectName } from './params.ts';

const tag = 'drafts';
const path = '/v1/projects/{project}/onboarding-draft';

/** Onboarding drafts (spec 2.6, 4.1 rule 4): the caller's own draft of a project, guarded by revision. */
export function draftRoutes(registry: Registry, deps: Drafts.DraftDeps): void {
  registry.add(
    {
      method: 'get',
      path,
      operationId: 'getOnboardingDraft',
      permission: 'draft:write',
      summary: "Resume the caller's onboarding draft of a project.",
      tag,
      responses: { 200: { description: 'The draft.', schema: Drafts.DraftView } },
      errors: [ErrorCode.NotFound],
    },
    async (c) => c.json(await Drafts.get(deps, c.get('identity'), projectName(c))),
  );

  registry.add(
    {
      method: 'put',
      path,
      operationId: 'saveOnboardingDraft',
      permission: 'draft:write',
      summary:
        'Save the draft at its current revision (0 creates); never environment values, ConfigMap values, credentials or messaging configuration.',
      tag,
      body: Drafts.DraftBody,
      responses: { 200: { description: 'The stored draft at its next revision.', schema: Drafts.DraftView } },
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
    async (c) => c.json(await Drafts.save(deps, c.get('identity'), projectName(c), await readJson(c))),
  );

  registry.add(
    {
      method: 'delete',
      path,
      operationId: 'discardOnboardingDraft',
      permission: 'draft:write',
      summary: 'Discard the draft; `revision` must be the current one.',
      tag,
      query: [
        {
          name: 'revision',
          description: 'The current revision of the draft (required).',
          schema: { type: 'integer', minimum: 0 },
        },
      ],
      responses: { 204: { description: 'Discarded.', schema: null } },
      errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound, ErrorCode.StaleRevision],
    },
    async (c) => {
      const project = projectName(c);
      const revision = integerQuery(c, 'revision', { min: 0, max: 2 ** 31 - 1 });
      if (revision === undefined) throw invalidQuery('revision', 'is required: the revision you last read');
      await Drafts.discard(deps, c.get('identity'), project, revision);
      return c.body(null, 204);
    },
  );
}
