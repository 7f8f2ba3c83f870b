/** A verification check of a composition, in its partition, kept as long as its events. */
import { Checks } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, readItem, recordEntries } from './entity.ts';
import { history } from './event.ts';

export const type = 'check';

export const { key, of, toItem } = history<Checks.CheckRecord, typeof type>(
  type,
  'CHECK#',
  (check) => check.ran_at,
);

const schema = itemSchema(
  type,
  recordEntries<Checks.CheckRecord>()({
    id: v.string(),
    composition_id: v.string(),
    kind: v.enum(Checks.CheckKind),
    generation: v.number(),
    status: v.enum(Checks.CheckStatus),
    message: v.string(),
    ran_at: v.string(),
    target: v.nullable(v.string()),
    http_status: v.nullable(v.number()),
    coverage: v.record(v.string(), v.picklist(['verified', 'mismatch', 'not_reached', 'unknown'])),
    fingerprint: v.object({ inputs: v.record(v.string(), v.string()), hash: v.string() }),
    /** Routing checks have none. */
    frontend: v.exactOptional(
      v.nullable(v.object({ name: v.string(), revision: v.string(), version: v.number() })),
    ),
  }),
);

export const fromItem = (item: Item): Checks.CheckRecord => readItem(schema, item);
