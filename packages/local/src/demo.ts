import { readFileSync } from 'node:fs';
import { applyCatalog, type CatalogDeps, type CatalogManifest } from '@svc/core';

/** The one demo manifest: seeds the local catalog and (with the cluster) the baseline workloads. */
export const demoManifestPath = new URL('../demo/catalog.json', import.meta.url);

export function demoManifest(): CatalogManifest {
  return JSON.parse(readFileSync(demoManifestPath, 'utf8')) as CatalogManifest;
}

/** Applies the demo manifest through the normal catalog path; a no-op when it is already current. */
export function seedDemoCatalog(deps: CatalogDeps) {
  return applyCatalog(deps, demoManifest());
}
