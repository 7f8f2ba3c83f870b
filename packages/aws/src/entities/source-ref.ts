/** One publication of a build for a ref: one partition per ref of a component's repository, newest last. */
import type { Builds } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem, recordEntries, timeOrdered } from './entity.ts';

export const type = 'source_ref';

export const partitionOf = (project: string, component: string, repository: string, ref: string) =>
  `SOURCE#${project}#${component}#${repository}#${ref}`;

export const key = (entry: Builds.SourceRef): Key => ({
  pk: partitionOf(entry.project, entry.component, entry.repository, entry.ref),
  sk: timeOrdered(entry.published_at, entry.build_id),
});

export const toItem = (entry: Builds.SourceRef): Item => ({ ...key(entry), item_type: type, ...entry });

const schema = itemSchema(
  type,
  recordEntries<Builds.SourceRef>()({
    project: v.string(),
    component: v.string(),
    repository: v.string(),
    ref: v.string(),
    build_id: v.string(),
    commit_sha: v.string(),
    published_at: v.string(),
  }),
);

export const fromItem = (item: Item): Builds.SourceRef => readItem(schema, item);
