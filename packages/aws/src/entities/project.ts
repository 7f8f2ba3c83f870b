/**
 * A project's pointer to its current catalog version: the version's summary (what lists show)
 * and its id. An apply flips it with one conditional write.
 */
import { Catalog } from '@svc/core';
import * as v from 'valibot';
import { everyIn, type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';

export const type = 'project';

export const key = (project: string): Key => ({ pk: `PROJECT#${project}`, sk: 'CURRENT' });

/** Every project, by name. */
export const listed = everyIn('gsi1', 'PROJECTS', {
  sort: (version: Pick<Catalog.ProjectVersion, 'project'>) => version.project,
  newestFirst: false,
});

/** What a project's pointer and a version's meta item hold. */
export interface Pointer extends Catalog.ProjectView {
  version_id: string;
  hash: string;
}

export const pointerOf = (version: Catalog.ProjectVersion): Pointer => ({
  name: version.project,
  version: version.version,
  version_id: version.version_id,
  default_baseline: version.default_baseline,
  hash: version.hash,
  applied_at: version.applied_at,
  components: Object.keys(version.components).sort(),
  baselines: Object.keys(version.baselines).sort(),
});

export const toItem = (version: Catalog.ProjectVersion): Item => ({
  ...key(version.project),
  item_type: type,
  ...listed.entry(version),
  ...pointerOf(version),
});

export const pointerEntries = recordEntries<Pointer>()({
  ...Catalog.ProjectView.entries,
  version_id: v.string(),
  hash: v.string(),
});

const schema = itemSchema(type, pointerEntries);

export const fromItem = (item: Item): Pointer => readItem(schema, item);
