import { Builds, Catalog, ErrorCode, Forge } from '@svc/core';
import type { Registry } from '../registry.ts';
import { invalidQuery, nameQuery, pageQuery, readJson } from '../request.ts';
import { pageParams, projectName } from './params.ts';

const tag = 'sources';

/** Published builds and the resolution of a source ref to one of them. */
export function sourceRoutes(
  registry: Registry,
  deps: Builds.BuildDeps & Pick<Forge.ForgeDeps, 'forgeStore' | 'jobs' | 'log'>,
): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/projects/{project}/builds',
      operationId: 'publishBuild',
      permission: 'build:publish',
      summary: 'Publish a CI build: which digest-pinned image a commit produced. Idempotent.',
      tag,
      body: Builds.PublishBuildBody,
      responses: {
        201: { description: 'Published.', schema: Builds.BuildView },
        200: {
          description: 'Already published (same component, repository, commit and digest).',
          schema: Builds.BuildView,
        },
      },
      errors: [
        ErrorCode.NotFound,
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.UnknownReference,
      ],
    },
    async (c) => {
      const { created, build } = await Builds.publish(
        deps,
        c.get('identity'),
        projectName(c),
        await readJson(c),
      );
      // Previews waiting for this commit proceed now; a failure here is repaired by the reconciliation.
      await Forge.buildPublished(deps, build).catch((error: unknown) =>
        deps.log({ level: 'warn', msg: 'waiting previews not triggered', error: String(error) }),
      );
      return c.json(build, created ? 201 : 200);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/builds',
      operationId: 'listBuilds',
      permission: 'build:read',
      summary: 'Published builds, newest first. Empty means CI has not published that revision yet.',
      tag,
      query: [
        { name: 'component', description: 'Only this component.', schema: { type: 'string' } },
        { name: 'repository', description: 'Only this repository (owner/name).', schema: { type: 'string' } },
        { name: 'commit_sha', description: 'Only this commit.', schema: { type: 'string' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of builds.', schema: Builds.BuildList } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => {
      const project = await Catalog.requireProject(deps, projectName(c));
      const repository = c.req.query('repository') ?? null;
      if (repository !== null && !/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/.test(repository)) {
        throw invalidQuery('repository', 'must be owner/name');
      }
      const commit = c.req.query('commit_sha') ?? null;
      if (commit !== null && !/^[0-9a-f]{40}$/.test(commit))
        throw invalidQuery('commit_sha', 'must be a 40-character hex SHA');
      const filter = { component: nameQuery(c, 'component'), repository, commit_sha: commit };
      return c.json(await deps.builds.list(project.project, filter, pageQuery(c)));
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/sources/resolve',
      operationId: 'resolveSource',
      permission: 'build:read',
      summary:
        'Resolve a ref (branch, tag or full commit SHA) to its commit and the build CI published for it; 404 when none was published.',
      tag,
      query: [
        { name: 'repository', description: 'owner/name (required).', schema: { type: 'string' } },
        { name: 'component', description: 'Component (required).', schema: { type: 'string' } },
        {
          name: 'ref',
          description: 'main, refs/heads/main, v1.2.0, refs/tags/v1.2.0 or a full commit SHA (required).',
          schema: { type: 'string' },
        },
      ],
      responses: {
        200: { description: 'The commit and its published build.', schema: Builds.SourceResolutionView },
      },
      errors: [ErrorCode.InvalidQuery, ErrorCode.NotFound, ErrorCode.UnknownReference],
    },
    async (c) => c.json(await Builds.resolveSource(deps, projectName(c), c.req.query())),
  );
}
