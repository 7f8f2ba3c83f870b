/**
 * One pointer per preview in its repository's partition, with the preview's state: the
 * reconciliation's list. It only narrows reads: the preview itself is always read again.
 */
import { Forge } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem } from './entity.ts';
import { repositoryKey } from './preview-policy.ts';

export const type = 'preview_pointer';

export const ofRepository = (repository: string) => `FORGEREPO#${repositoryKey(repository)}`;

export const key = (repository: string, id: string): Key => ({
  pk: ofRepository(repository),
  sk: `PREVIEW#${id}`,
});

export const toItem = (record: Forge.PreviewRecord): Item => ({
  ...key(record.repository, record.id),
  item_type: type,
  id: record.id,
  project: record.project,
  number: record.number,
  state: record.state,
});

const schema = itemSchema(type, {
  id: v.string(),
  project: v.string(),
  number: v.number(),
  state: v.enum(Forge.PreviewState),
});

export const fromItem = (item: Item) => readItem(schema, item);
