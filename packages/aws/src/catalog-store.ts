import type { Catalog, Page, PageRequest } from '@svc/core';
import { claimNamespaces, commit, heldNamespaces, releaseNamespaces } from './catalog-writes.ts';
import { CatalogBaseline, CatalogComponent, CatalogVersion, Project } from './entities/index.ts';
import { getItem, oneOf, queryAll, queryPage, type Table } from './table.ts';

/**
 * Versions are immutable, so they are cached by version id: a read costs one consistent GetItem of
 * the project's pointer unless the version is new to this process.
 */
export function dynamoCatalogStore(table: Table, options: { cacheSize?: number } = {}): Catalog.CatalogStore {
  const cache = versionCache(options.cacheSize ?? 64);
  return {
    claimNamespaces: (claims) => claimNamespaces(table, claims),
    heldNamespaces: (project) => heldNamespaces(table, project),
    releaseNamespaces: (project, release) => releaseNamespaces(table, project, release),
    readProject: (project) => readProject(table, cache, project),
    readVersion: (project, versionId) => readVersion(table, cache, project, versionId),
    listProjects: (page, only) => listProjects(table, page, only),
    commit: (changes) => commit(table, changes),
  };
}

/** The last `size` versions read, by version id; the oldest goes first. */
function versionCache(size: number) {
  const versions = new Map<string, Catalog.ProjectVersion>();
  return {
    get: (versionId: string) => versions.get(versionId),
    remember(version: Catalog.ProjectVersion): Catalog.ProjectVersion {
      versions.set(version.version_id, version);
      if (versions.size > size) versions.delete(versions.keys().next().value as string);
      return version;
    },
  };
}

type VersionCache = ReturnType<typeof versionCache>;

async function readProject(
  table: Table,
  cache: VersionCache,
  project: string,
): Promise<Catalog.ProjectVersion | null> {
  const pointer = await getItem(table, Project.key(project), Project.fromItem);
  if (!pointer) return null;
  return cache.get(pointer.version_id) ?? cache.remember(await loadVersion(table, pointer));
}

async function readVersion(
  table: Table,
  cache: VersionCache,
  project: string,
  versionId: string,
): Promise<Catalog.ProjectVersion | null> {
  const cached = cache.get(versionId);
  if (cached) return cached;
  const meta = await getItem(table, CatalogVersion.key(project, versionId), CatalogVersion.fromItem);
  return meta ? cache.remember(await loadVersion(table, meta)) : null;
}

/** A version's components and baselines, read consistently from its partition. */
async function loadVersion(table: Table, pointer: Project.Pointer): Promise<Catalog.ProjectVersion> {
  const components: Record<string, Catalog.Revisioned<Catalog.ComponentProfile>> = {};
  const baselines: Record<string, Catalog.Revisioned<Catalog.Baseline>> = {};
  const partition = CatalogVersion.partitionOf(pointer.name, pointer.version_id);
  for (const item of await queryAll(table, { partition, consistent: true })) {
    if (item.item_type === CatalogComponent.type) {
      const { name, ...entry } = CatalogComponent.fromItem(item);
      components[name] = entry;
    }
    if (item.item_type === CatalogBaseline.type) {
      const { name, ...entry } = CatalogBaseline.fromItem(item);
      baselines[name] = entry;
    }
  }
  return {
    project: pointer.name,
    version: pointer.version,
    version_id: pointer.version_id,
    default_baseline: pointer.default_baseline,
    hash: pointer.hash,
    applied_at: pointer.applied_at,
    components,
    baselines,
  };
}

async function listProjects(
  table: Table,
  page: PageRequest,
  only: readonly string[] | null,
): Promise<Page<Catalog.ProjectView>> {
  const filter = oneOf('name', only);
  const projects = await queryPage(
    table,
    { ...Project.listed.query(), ...(filter ? { filter } : {}) },
    page,
    Project.fromItem,
  );
  return {
    items: projects.items.map(({ version_id: _id, hash: _hash, ...view }) => view),
    next_cursor: projects.next_cursor,
  };
}
