/**
 * A catalog version's meta item: the pointer's fields, written with the version's component and
 * baseline items under a fresh version id before any pointer names it. Versions are immutable.
 */
import type { Catalog } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem } from './entity.ts';
import { type Pointer, pointerEntries, pointerOf } from './project.ts';

export const type = 'catalog-version';

/** One partition per version: its meta item, one item per component and per baseline. */
export const partitionOf = (project: string, versionId: string) => `CATALOG#${project}#${versionId}`;

export const key = (project: string, versionId: string): Key => ({
  pk: partitionOf(project, versionId),
  sk: 'META',
});

export const toItem = (version: Catalog.ProjectVersion): Item => ({
  ...key(version.project, version.version_id),
  item_type: type,
  ...pointerOf(version),
});

const schema = itemSchema(type, pointerEntries);

export const fromItem = (item: Item): Pointer => readItem(schema, item);

/**
 * The item type of a version's components or of its baselines: one item per name, in the version's
 * partition. Its spec passed the manifest schema when it was applied and versions never change, so
 * a read checks only that a spec is there: a rule tightened later never makes an old version (which
 * compositions roll out from) unreadable.
 */
export function versionEntries<TSpec, const TType extends string>(entryType: TType, sortPrefix: string) {
  const entryKey = (project: string, versionId: string, name: string): Key => ({
    pk: partitionOf(project, versionId),
    sk: `${sortPrefix}${name}`,
  });
  const entrySchema = itemSchema(entryType, {
    name: v.string(),
    spec: v.custom<TSpec>((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
    revision: v.number(),
    hash: v.string(),
  });
  return {
    type: entryType,
    key: entryKey,
    toItem: (
      version: Pick<Catalog.ProjectVersion, 'project' | 'version_id'>,
      name: string,
      entry: Catalog.Revisioned<TSpec>,
    ): Item => ({
      ...entryKey(version.project, version.version_id, name),
      item_type: entryType,
      name,
      ...entry,
    }),
    fromItem: (item: Item) => readItem(entrySchema, item),
  };
}
