import type { compositionOperations } from '@svc/contract';
import { pageOf } from '@svc/contract';
import { Compositions, Forge } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

export function compositionHandlers(deps: Forge.ForgeDeps): HandlersOf<typeof compositionOperations> {
  return {
    async createComposition(c, { body, idempotency }) {
      const result = await Compositions.create(deps, c.get('identity'), body, idempotency);
      c.header('location', `/v1/compositions/${result.body.id}`);
      if (result.replayed) c.header('idempotent-replayed', 'true');
      return c.json(result.body, result.status as 202);
    },
    listCompositions: async (c, { query }) =>
      c.json(
        await Compositions.list(deps, c.get('identity'), { project: query.project ?? null }, pageOf(query)),
      ),
    planComposition: async (c, { body }) => c.json(await Compositions.plan(deps, c.get('identity'), body)),
    getComposition: async (c, { path }) => c.json(await Compositions.get(deps, c.get('identity'), path.id)),
    getCompositionStatus: async (c, { path }) =>
      c.json(await Compositions.getStatus(deps, c.get('identity'), path.id)),
    getCompositionEndpoints: async (c, { path }) =>
      c.json(await Compositions.getEndpoints(deps, c.get('identity'), path.id)),
    listCompositionEvents: async (c, { path, query }) =>
      c.json(await Compositions.listEvents(deps, c.get('identity'), path.id, pageOf(query))),
    async updateComposition(c, { path, body }) {
      const result = await Compositions.update(deps, c.get('identity'), path.id, body);
      return c.json(result.body, 202);
    },
    async wakeComposition(c, { path }) {
      const result = await Compositions.wake(deps, c.get('identity'), path.id);
      return c.json(result.body, result.status as 200 | 202);
    },
    async destroyComposition(c, { path }) {
      const identity = c.get('identity');
      const result = await Compositions.destroy(
        deps,
        { actor: { kind: 'user', subject: identity.subject }, grants: identity.grants },
        path.id,
      );
      // A pull-request preview deleted by hand stays deleted: its automation records a stop.
      await Forge.stopForComposition(deps, result.body);
      return c.json(result.body, 202);
    },
  };
}
