import type { draftOperations } from '@svc/contract';
import { Drafts } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

/** Onboarding drafts (spec 2.6, 4.1 rule 4): the caller's own draft of a project, guarded by revision. */
export function draftHandlers(deps: Drafts.DraftDeps): HandlersOf<typeof draftOperations> {
  return {
    getOnboardingDraft: async (c, { path }) =>
      c.json(await Drafts.get(deps, c.get('identity'), path.project)),
    saveOnboardingDraft: async (c, { path, body }) =>
      c.json(await Drafts.save(deps, c.get('identity'), path.project, body)),
    async discardOnboardingDraft(c, { path, query }) {
      await Drafts.discard(deps, c.get('identity'), path.project, query.revision);
      return c.body(null, 204);
    },
  };
}
