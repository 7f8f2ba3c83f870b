import { type catalogOperations, pageOf } from '@svc/contract';
import { Catalog } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

export function catalogHandlers(deps: Catalog.CatalogDeps): HandlersOf<typeof catalogOperations> {
  return {
    validateCatalog: async (c, { body }) => c.json(Catalog.validate(deps, c.get('identity'), body)),
    applyCatalog: async (c, { body }) => c.json(await Catalog.apply(deps, c.get('identity'), body)),
    listProjects: async (c, { query }) =>
      c.json(await Catalog.listProjects(deps, c.get('identity'), pageOf(query))),
    listComponents: async (c, { path, query }) =>
      c.json(await Catalog.listComponents(deps, path.project, pageOf(query))),
    listBaselines: async (c, { path, query }) =>
      c.json(await Catalog.listBaselines(deps, path.project, pageOf(query))),
  };
}
