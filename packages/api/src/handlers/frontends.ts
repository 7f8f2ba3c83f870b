import type { frontendOperations } from '@svc/contract';
import { Checks, Frontends } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

export function frontendHandlers(
  deps: Frontends.FrontendDeps & Checks.CheckDeps,
): HandlersOf<typeof frontendOperations> {
  return {
    async bindFrontend(c, { path, body }) {
      const { created, binding } = await Frontends.bind(deps, c.get('identity'), path, body);
      return c.json(binding, created ? 201 : 200);
    },
    resolveFrontend: async (c, { path, query }) =>
      c.json(await Frontends.resolve(deps, path, query.wait_seconds ?? 0)),
    publishFrontend: async (c, { path, body }) =>
      c.json(await Frontends.publish(deps, c.get('identity'), path, body)),
    recordFrontendCheck: async (c, { path, body }) =>
      c.json(await Checks.recordFrontend(deps, c.get('identity'), path, body), 201),
  };
}
