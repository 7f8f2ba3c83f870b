import { Catalog, ErrorCode, pageSchema } from '@svc/core';
import * as v from 'valibot';
import type { Registry } from '../registry.ts';
import { pageQuery, readJson } from '../request.ts';
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

export function catalogRoutes(registry: Registry, deps: Catalog.CatalogDeps): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/catalog/validate',
      operationId: 'validateCatalog',
      permission: 'catalog:read',
      summary: 'Dry-run validation of a catalog manifest; changes nothing.',
      tag,
      body: Catalog.CatalogManifest,
      responses: { 200: { description: 'Every problem, by path.', schema: ValidationView } },
      errors: [ErrorCode.MalformedJson, ErrorCode.UnsupportedMediaType, ErrorCode.PayloadTooLarge],
    },
    async (c) => c.json(Catalog.validate(deps, c.get('identity'), await readJson(c))),
  );

  registry.add(
    {
      method: 'post',
      path: '/v1/catalog/apply',
      operationId: 'applyCatalog',
      permission: 'catalog:apply',
      summary: 'Register projects, components and baselines atomically; re-applying is a no-op.',
      tag,
      body: Catalog.CatalogManifest,
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
    async (c) => c.json(await Catalog.apply(deps, c.get('identity'), await readJson(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects',
      operationId: 'listProjects',
      permission: 'catalog:read',
      summary: 'Registered projects.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of projects.', schema: pageSchema(Catalog.ProjectView) } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await Catalog.listProjects(deps, c.get('identity'), pageQuery(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/components',
      operationId: 'listComponents',
      permission: 'catalog:read',
      summary: 'Approved component profiles with their revisions.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of components.', schema: pageSchema(Catalog.ComponentView) } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await Catalog.listComponents(deps, projectName(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/projects/{project}/baselines',
      operationId: 'listBaselines',
      permission: 'catalog:read',
      summary: 'Registered baselines with their revisions.',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of baselines.', schema: pageSchema(Catalog.BaselineView) } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await Catalog.listBaselines(deps, projectName(c), pageQuery(c))),
  );
}
