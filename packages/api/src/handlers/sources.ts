import { pageOf, type sourceOperations } from '@svc/contract';
import { Builds, Catalog, Forge } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

/** Published builds and the resolution of a source ref to one of them. */
export function sourceHandlers(
  deps: Builds.BuildDeps & Pick<Forge.ForgeDeps, 'forgeStore' | 'jobs' | 'log'>,
): HandlersOf<typeof sourceOperations> {
  return {
    async publishBuild(c, { path, body }) {
      const { created, build } = await Builds.publish(deps, c.get('identity'), path.project, body);
      // Previews waiting for this commit proceed now; a failure here is repaired by the reconciliation.
      await Forge.buildPublished(deps, build).catch((error: unknown) =>
        deps.log({ level: 'warn', msg: 'waiting previews not triggered', error: String(error) }),
      );
      return c.json(build, created ? 201 : 200);
    },
    async listBuilds(c, { path, query }) {
      const project = await Catalog.requireProject(deps, path.project);
      const filter = {
        component: query.component ?? null,
        repository: query.repository ?? null,
        commit_sha: query.commit_sha ?? null,
      };
      return c.json(await deps.builds.list(project.project, filter, pageOf(query)));
    },
    resolveSource: async (c, { path, query }) =>
      c.json(await Builds.resolveSource(deps, path.project, query)),
  };
}
