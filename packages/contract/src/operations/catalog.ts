/** The catalog: validate and apply manifests; projects, components and baselines. */
import { Catalog, ErrorCode, pageSchema } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { projectParam } from '../params.ts';
import { pageParams } from '../query.ts';

const tag = 'catalog';

export const catalogOperations = {
  validateCatalog: {
    method: 'post',
    path: '/v1/catalog/validate',
    permission: 'catalog:read',
    summary: 'Dry-run validation of a catalog manifest; changes nothing.',
    tag,
    body: Catalog.CatalogManifest,
    judgesBody: true,
    responses: { 200: { description: 'Every problem, by path.', json: Catalog.CatalogValidationView } },
    errors: [ErrorCode.MalformedJson, ErrorCode.UnsupportedMediaType, ErrorCode.PayloadTooLarge],
  },

  applyCatalog: {
    method: 'post',
    path: '/v1/catalog/apply',
    permission: 'catalog:apply',
    summary: 'Register projects, components and baselines atomically; re-applying is a no-op.',
    tag,
    body: Catalog.CatalogManifest,
    judgesBody: true,
    responses: {
      200: {
        description: 'What changed; each project with its version and revisions.',
        json: Catalog.ApplyView,
      },
    },
    errors: [
      ErrorCode.MalformedJson,
      ErrorCode.ValidationFailed,
      ErrorCode.CatalogConflict,
      ErrorCode.NamespaceTaken,
      ErrorCode.NamespaceInUse,
      ErrorCode.UnsupportedMediaType,
      ErrorCode.PayloadTooLarge,
    ],
  },

  listProjects: {
    method: 'get',
    path: '/v1/projects',
    permission: 'catalog:read',
    summary: 'Registered projects.',
    tag,
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of projects.', json: pageSchema(Catalog.ProjectView) } },
    errors: [ErrorCode.InvalidQuery],
  },

  listComponents: {
    method: 'get',
    path: '/v1/projects/{project}/components',
    permission: 'catalog:read',
    summary: 'Approved component profiles with their revisions.',
    tag,
    params: { project: projectParam },
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of components.', json: pageSchema(Catalog.ComponentView) } },
    errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
  },

  listBaselines: {
    method: 'get',
    path: '/v1/projects/{project}/baselines',
    permission: 'catalog:read',
    summary: 'Registered baselines with their revisions.',
    tag,
    params: { project: projectParam },
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of baselines.', json: pageSchema(Catalog.BaselineView) } },
    errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
  },
} as const satisfies Record<string, ApiOperation>;
