/** A composition's event (what `GET /v1/compositions/{id}/events` lists), in its partition, kept 31 days. */
import { Compositions } from '@svc/core';
import * as v from 'valibot';
import { partitionOf } from './composition.ts';
import {
  expiresAfter,
  type Item,
  itemSchema,
  type Key,
  type PartitionPrefix,
  readItem,
  recordEntries,
  timeOrdered,
} from './entity.ts';

/** Events and checks outlive their composition's 30 days by one, so its last event is never missing. */
const retentionSeconds = 31 * 24 * 3600;

/**
 * The layout of a composition's history (its events, its checks): items in the composition's
 * partition under `prefix`, ordered by the time `timeOf` gives, kept 31 days after it.
 */
export function history<TRecord extends { composition_id: string; id: string }, const TType extends string>(
  type: TType,
  prefix: string,
  timeOf: (record: TRecord) => string,
) {
  const key = (record: TRecord): Key => ({
    pk: partitionOf(record.composition_id),
    sk: `${prefix}${timeOrdered(timeOf(record), record.id)}`,
  });
  return {
    key,
    of: (compositionId: string): PartitionPrefix => ({ partition: partitionOf(compositionId), prefix }),
    toItem: (record: TRecord): Item => ({
      ...key(record),
      item_type: type,
      ...record,
      ...expiresAfter(timeOf(record), retentionSeconds),
    }),
  };
}

export const type = 'event';

export const { key, of, toItem } = history<Compositions.CompositionEvent, typeof type>(
  type,
  'EVENT#',
  (event) => event.at,
);

const schema = itemSchema(
  type,
  recordEntries<Compositions.CompositionEvent>()({
    id: v.string(),
    composition_id: v.string(),
    type: v.enum(Compositions.EventType),
    at: v.string(),
    actor: v.object({ kind: v.enum(Compositions.EventActorKind), subject: v.string() }),
    operation_id: v.nullable(v.string()),
    generation: v.number(),
    message: v.string(),
    data: v.record(v.string(), v.unknown()),
  }),
);

export const fromItem = (item: Item): Compositions.CompositionEvent => readItem(schema, item);
