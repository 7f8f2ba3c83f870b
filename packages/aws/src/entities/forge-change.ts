/**
 * A change across repositories (docs/forge.md): one item per installation account and key, read
 * by its derived id and written over the `lock_version` read. Its pull requests are in the item.
 */
import { Forge } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';

export const type = 'forge_change';

export const key = (id: string): Key => ({ pk: `CHANGE#${id}`, sk: 'CHANGE' });

export const toItem = (record: Forge.ChangeRecord): Item => ({
  ...key(record.id),
  item_type: type,
  ...record,
});

const nullableString = v.nullable(v.string());

const schema = itemSchema(
  type,
  recordEntries<Forge.ChangeRecord>()({
    id: v.string(),
    account: v.string(),
    key: v.object({ kind: v.picklist(['branch', 'label']), name: v.string() }),
    project: nullableString,
    members: v.array(
      v.object({ repository: v.string(), number: v.number(), components: v.array(v.string()) }),
    ),
    state: v.enum(Forge.PreviewState),
    composition_id: nullableString,
    composed: v.record(v.string(), v.string()),
    url: nullableString,
    expires_at: nullableString,
    refusal: v.nullable(v.object({ code: v.string(), message: v.string() })),
    suppressed: v.boolean(),
    restart_pending: v.boolean(),
    poll_at: nullableString,
    created_at: v.string(),
    updated_at: v.string(),
    lock_version: v.number(),
  }),
);

export const fromItem = (item: Item): Forge.ChangeRecord => readItem(schema, item);
