import {
  applyCatalog,
  BaselineView,
  BuildList,
  type BuildStore,
  BuildView,
  type CatalogDeps,
  CatalogManifest,
  ComponentView,
  ErrorCode,
  listBaselines,
  listComponents,
  listProjects,
  ProjectView,
  PublishBuildBody,
  pageSchema,
  publishBuild,
  requireProject,
  validateCatalog,
} from '@svc/core';
import * as v from 'valibot';
import type { Registry } from '../registry.ts';
import { invalidQuery, nameQuery, pageQuery, readJson } from '../request.ts';
import { pageParams, projectName } from './params.ts';

const tag = 'catalog';

const CatalogProblem = v.object({ path: v.string(), code: v.string(), message: v.string() });
const ValidationView = v.object({ valid: v.boolean(), problems: v.array(CatalogProblem) });
const ApplyView = v.object({
  changed: v.boolean(),
  projects: v.array(
    v.object({
      name: v.string(),
      version: v.number(),
      changed: v.boolean(),
      revisions: v.record(v.string(), v.number()),
    }),
  ),
});

export function catalogRoutes(registry: Registry, deps: CatalogDeps & { builds: BuildStore }): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/catalog/validate',
      operationId: 'validateCatalog',
      summary: 'Dry-run validation of a catalog manifest; changes nothing.',
      tag,
      body: CatalogManifest,
      responses: { 200: { description: 'Every problem, by path.', schema: ValidationView } },
      errors: [ErrorCode.MalformedJson, ErrorCode.UnsupportedMediaType, ErrorCode.PayloadTooLarge],
    },
    async (c) => c.json(validateCatalog(await readJson(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/catalog/apply',
      operationId: 'applyCatalog',
      summary: 'Register projects, components and baselines atomically; re-applying is a no-op.',
      tag,
      body: CatalogManifest,
      responses: {
        200: { description: 'What changed; each project with its version and revisions.', schema: ApplyView },
      },
      errors: [
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.CatalogConflict,
        ErrorCode.UnsupportedMediaType,
        ErrorCode.PayloadTooLarge,
      ],
    },
    async (c) => c.json(await applyCatalog(deps, await readJson(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects',
      operationId: 'listProjects',
      summary: 'Registered projects.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of projects.', schema: pageSchema(ProjectView) } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await listProjects(deps, pageQuery(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/components',
      operationId: 'listComponents',
      summary: 'Approved component profiles with their revisions.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of components.', schema: pageSchema(ComponentView) } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await listComponents(deps, projectName(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/baselines',
      operationId: 'listBaselines',
      summary: 'Registered baselines with their revisions.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of baselines.', schema: pageSchema(BaselineView) } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await listBaselines(deps, projectName(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/projects/{project}/builds',
      operationId: 'publishBuild',
      summary: 'Publish a CI build: which digest-pinned image a commit produced. Idempotent.',
      tag: 'sources',
      body: PublishBuildBody,
      responses: {
        201: { description: 'Published.', schema: BuildView },
        200: {
          description: 'Already published (same component, repository, commit and digest).',
          schema: BuildView,
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
      const { created, build } = await publishBuild(
        deps,
        c.get('identity'),
        projectName(c),
        await readJson(c),
      );
      return c.json(build, created ? 201 : 200);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/builds',
      operationId: 'listBuilds',
      summary: 'Published builds, newest first. Empty means CI has not published that revision yet.',
      tag: 'sources',
      query: [
        { name: 'component', description: 'Only this component.', schema: { type: 'string' } },
        { name: 'repository', description: 'Only this repository (owner/name).', schema: { type: 'string' } },
        { name: 'commit_sha', description: 'Only this commit.', schema: { type: 'string' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of builds.', schema: BuildList } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => {
      const project = await requireProject(deps, projectName(c));
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
}
