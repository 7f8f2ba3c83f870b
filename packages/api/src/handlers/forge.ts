import { type forgeOperations, pageOf } from '@svc/contract';
import { Forge } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

export interface ForgeRouteDeps extends Forge.ForgeDeps {
  forgeConfiguration: Forge.ForgeConfiguration;
}

/** Pull-request previews: the app's health and discovery, repository policies, previews and their controls. */
export function forgeHandlers(deps: ForgeRouteDeps): HandlersOf<typeof forgeOperations> {
  return {
    getForgeStatus: async (c) => c.json(await Forge.status(deps, deps.forgeConfiguration)),
    listForgeInstallations: async (c, { query }) =>
      c.json(await Forge.listInstallations(deps, query.page ?? 1)),
    listForgeInstallationRepositories: async (c, { path, query }) =>
      c.json(await Forge.listRepositories(deps, path.id, query.page ?? 1)),
    listPreviewPolicies: async (c, { query }) =>
      c.json(await Forge.listPolicies(deps, c.get('identity'), pageOf(query))),
    listForgeDeliveries: async (c, { query }) =>
      c.json(
        await Forge.listDeliveries(
          deps,
          c.get('identity'),
          { project: query.project, repository: query.repository },
          pageOf(query),
        ),
      ),
    getPreviewPolicy: async (c, { path }) =>
      c.json(await Forge.getPolicy(deps, c.get('identity'), path.project, path.repository)),
    async putPreviewPolicy(c, { path, body }) {
      const result = await Forge.putPolicy(deps, c.get('identity'), path.project, path.repository, body);
      return c.json(result.policy, result.created ? 201 : 200);
    },
    async deletePreviewPolicy(c, { path }) {
      await Forge.deletePolicy(deps, c.get('identity'), path.project, path.repository);
      return c.body(null, 204);
    },
    listForgePreviews: async (c, { query }) =>
      c.json(
        await Forge.listPreviews(deps, c.get('identity'), { project: query.project ?? null }, pageOf(query)),
      ),
    getForgePreview: async (c, { path }) => c.json(await Forge.getPreview(deps, c.get('identity'), path.id)),
    stopForgePreview: async (c, { path }) => c.json(await Forge.stop(deps, c.get('identity'), path.id)),
    restartForgePreview: async (c, { path }) => c.json(await Forge.restart(deps, c.get('identity'), path.id)),
  };
}
