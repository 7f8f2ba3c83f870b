/** The catalog: validate and apply manifests; projects, components and baselines. */
import { Catalog, ErrorCode, pageSchema } from '@svc/core';
import type { ApiOperation } from '../operation.ts';
import { projectParam } from '../params.ts';
import { list, write } from '../shapes.ts';

const tag = 'catalog';
const byProject = { project: projectParam };

export const catalogOperations = {
  validateCatalog: write(
    'post',
    {
      path: '/v1/catalog/validate',
      permission: 'catalog:read',
      summary: 'Dry-run validation of a catalog manifest; changes nothing.',
      tag,
      body: Catalog.CatalogManifest,
      judgesBody: true,
    },
    200,
    { description: 'Every problem, by path.', json: Catalog.CatalogValidationView },
  ),

  applyCatalog: write(
    'post',
    {
      path: '/v1/catalog/apply',
      permission: 'catalog:apply',
      summary: 'Register projects, components and baselines atomically; re-applying is a no-op.',
      tag,
      body: Catalog.CatalogManifest,
      judgesBody: true,
      errors: [ErrorCode.CatalogConflict, ErrorCode.NamespaceTaken, ErrorCode.NamespaceInUse],
    },
    200,
    {
      description: 'What changed; each project with its version and revisions.',
      json: Catalog.ApplyView,
    },
  ),

  listProjects: list(
    { path: '/v1/projects', permission: 'catalog:read', summary: 'Registered projects.', tag },
    { description: 'A page of projects.', json: pageSchema(Catalog.ProjectView) },
  ),

  listComponents: list(
    {
      path: '/v1/projects/{project}/components',
      permission: 'catalog:read',
      summary: 'Approved component profiles with their revisions.',
      tag,
      params: byProject,
    },
    { description: 'A page of components.', json: pageSchema(Catalog.ComponentView) },
  ),

  listBaselines: list(
    {
      path: '/v1/projects/{project}/baselines',
      permission: 'catalog:read',
      summary: 'Registered baselines with their revisions.',
      tag,
      params: byProject,
    },
    { description: 'A page of baselines.', json: pageSchema(Catalog.BaselineView) },
  ),
} as const satisfies Record<string, ApiOperation>;
