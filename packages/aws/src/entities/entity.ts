/**
 * What every entity of the single table shares: its keys and index entries (attribute and index
 * names come from core's resources.ts; entities build the values), the `due` index's work queues,
 * and reading an item back through its schema. docs/data-model.md draws the whole layout.
 */
import { Resources } from '@svc/core';
import * as v from 'valibot';

/** An item as the document client writes and reads it. */
export type Item = Record<string, unknown>;

type GlobalIndex = (typeof Resources.table.globalIndexes)[number];
export type IndexName = GlobalIndex['name'];
type IndexNamed<N extends IndexName> = Extract<GlobalIndex, { name: N }>;

export function globalIndex<N extends IndexName>(name: N): IndexNamed<N> {
  return Resources.table.globalIndexes.find((index) => index.name === name) as IndexNamed<N>;
}

/** A base-table key. */
export type Key = Record<typeof Resources.table.partitionKey | typeof Resources.table.sortKey, string>;

/** An item's entry in a global index: the index's key attributes and their values. */
type IndexEntry<N extends IndexName> = Record<
  IndexNamed<N>['partitionKey'] | IndexNamed<N>['sortKey'],
  string
>;

export function indexEntry<N extends IndexName>(name: N, partition: string, sort: string): IndexEntry<N> {
  const { partitionKey, sortKey } = globalIndex(name);
  return { [partitionKey]: partition, [sortKey]: sort } as IndexEntry<N>;
}

/** Sort values of time-ordered entries: the time orders, the id keeps equal times apart. */
export const timeOrdered = (at: string, id: string) => `${at}#${id}`;

/** A Query for part of a partition: the partition and a sort key prefix. */
export interface PartitionPrefix {
  partition: string;
  prefix: string;
}

/** Partitions of the sparse `due` index: one work queue per sweep. */
export const DueQueue = { Expiry: 'EXPIRY', Operations: 'OPS', Idempotency: 'IDEM', Forge: 'FORGE' } as const;
export type DueQueue = (typeof DueQueue)[keyof typeof DueQueue];

export const dueEntry = (queue: DueQueue, at: string, id: string) =>
  indexEntry('due', queue, timeOrdered(at, id));

/** The sort key bound of a `due` Query: every entry due at or before `now`, whatever its id. */
export const dueUntil = (now: Date) => `${now.toISOString()}#~`;

export function epochSeconds(iso: string | Date): number {
  return Math.floor((typeof iso === 'string' ? Date.parse(iso) : iso.getTime()) / 1000);
}

/** The value of the table's `ttl` attribute: `seconds` after `iso`. */
export const expiresAfter = (iso: string, seconds: number) => ({ ttl: epochSeconds(iso) + seconds });

/**
 * The schema of an item type: its key, its `item_type` and the attributes of the record it holds,
 * read back as that record. Index entries and `ttl` are the layout's, not the record's: they are
 * left out of what is read, as any attribute the schema does not name.
 */
export function itemSchema<const TType extends string, const TEntries extends v.ObjectEntries>(
  type: TType,
  entries: TEntries,
) {
  return v.pipe(
    v.object({ pk: v.string(), sk: v.string(), item_type: v.literal(type), ...entries }),
    v.transform(({ pk: _pk, sk: _sk, item_type: _type, ...record }) => record),
  );
}

type Unmatched<A, B> = Exclude<keyof A, keyof B>;

/**
 * A record's attributes as schema entries, refused at compile time unless they name exactly the
 * attributes of `TRecord`, optional ones included: an attribute a record gains cannot be left out
 * of its schema and so silently dropped on read.
 */
export function recordEntries<TRecord>() {
  return <const TEntries extends v.ObjectEntries>(
    entries: TEntries &
      ([Unmatched<TRecord, TEntries> | Unmatched<TEntries, TRecord>] extends [never]
        ? unknown
        : { missing: Unmatched<TRecord, TEntries>; unknown: Unmatched<TEntries, TRecord> }),
  ): TEntries => entries;
}

/** A stored item that does not have its type's shape: a bug or a hand-made item, never a value to guess at. */
export class StoredItemError extends Error {
  override name = 'StoredItemError';
}

/** The record `item` holds, read through `schema`; the error names the attributes that do not fit, never their values. */
export function readItem<TOutput>(schema: v.GenericSchema<unknown, TOutput>, item: Item): TOutput {
  const result = v.safeParse(schema, item);
  if (result.success) return result.output;
  const where = result.issues.map((issue) => v.getDotPath(issue) ?? '(item)').join(', ');
  throw new StoredItemError(`a stored ${String(item.item_type)} item does not fit its schema at ${where}`);
}

const keySchema = v.object({ pk: v.string(), sk: v.string() });

/** The base-table key of an item read from an index, to write or delete the item itself. */
export const keyOf = (item: Item): Key => readItem(keySchema, item);

/** False once the item is past its `ttl`: DynamoDB deletes expired items late, so reads treat them as absent. */
export const isLive = (item: Item, now: Date) =>
  !(typeof item.ttl === 'number' && item.ttl <= epochSeconds(now));
