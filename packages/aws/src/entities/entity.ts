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

function indexEntry<N extends IndexName>(name: N, partition: string, sort: string): IndexEntry<N> {
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

/** What a Query reads: a partition of the table or of a global index (only the sort keys with `prefix`), in an order. */
export interface Query {
  readonly index?: IndexName;
  readonly partition: string;
  readonly prefix?: string;
  readonly newestFirst: boolean;
}

/** Several partitions of one index read as one list, newest first. */
export interface MergedQuery {
  readonly index: IndexName;
  readonly partitions: readonly string[];
}

/** The one item of an index partition with this sort key. */
export interface ItemQuery {
  readonly index: IndexName;
  readonly partition: string;
  readonly sort: string;
}

/** The entries of a `due` queue up to `until` (a sort key), oldest first; every entry without it. */
export interface DueQuery {
  readonly index: 'due';
  readonly partition: DueQueue;
  readonly until?: string;
}

interface IndexKey<P, R> {
  /** The partition a record is found in, from what a query knows of it. */
  partition: (of: P) => string;
  /** Where a record sorts in its partition. */
  sort: (record: R) => string;
  /** Whether a query reads the highest sort keys first. */
  newestFirst: boolean;
}

/**
 * An access pattern of a global index, declared by the entity whose items it finds, as ElectroDB's
 * `indexes` are: `entry` is a record's place in it (the entity's `toItem` writes it), `query` reads
 * one of its partitions, `across` several as one list, `at` the one item with a sort key (the
 * stores read it so). Only entities name an index.
 */
export function indexPattern<P, R>(index: IndexName, key: IndexKey<P, R>) {
  return {
    index,
    newestFirst: key.newestFirst,
    entry: (record: P & R) => indexEntry(index, key.partition(record), key.sort(record)),
    query: (of: P): Query => ({ index, partition: key.partition(of), newestFirst: key.newestFirst }),
    across: (of: readonly P[]): MergedQuery => ({ index, partitions: of.map(key.partition) }),
    at: (of: P, sort: string): ItemQuery => ({ index, partition: key.partition(of), sort }),
  };
}

/** An access pattern whose one partition holds every item of a kind (`COMPS`, `TOKENS`). */
export function everyIn<R>(
  index: IndexName,
  partition: string,
  key: { sort: (record: R) => string; newestFirst: boolean },
) {
  return {
    index,
    newestFirst: key.newestFirst,
    entry: (record: R) => indexEntry(index, partition, key.sort(record)),
    query: (): Query => ({ index, partition, newestFirst: key.newestFirst }),
    at: (sort: string): ItemQuery => ({ index, partition, sort }),
  };
}

/** Partitions of the sparse `due` index: one work queue per sweep. */
export const DueQueue = { Expiry: 'EXPIRY', Operations: 'OPS', Idempotency: 'IDEM', Forge: 'FORGE' } as const;
export type DueQueue = (typeof DueQueue)[keyof typeof DueQueue];

/** The sort key bound of a `due` Query: every entry due at or before `now`, whatever its id. */
const dueUntil = (now: Date) => `${now.toISOString()}#~`;

/**
 * A work queue of the sparse `due` index, declared by the entity whose items wait in it: `entry`
 * puts an item in it until `at` (also as an update: `set`, and `remove` to take it out), `until`
 * reads what is due by then, `all` every entry.
 */
export function dueQueue(queue: DueQueue) {
  const { partitionKey, sortKey } = globalIndex('due');
  const entry = (at: string, id: string) => indexEntry('due', queue, timeOrdered(at, id));
  return {
    index: 'due' as const,
    queue,
    entry,
    until: (now: Date): DueQuery => ({ index: 'due', partition: queue, until: dueUntil(now) }),
    all: (): DueQuery => ({ index: 'due', partition: queue }),
    /** An UpdateExpression's SET clause putting the item in the queue until `at`. */
    set: (at: string, id: string) => {
      const values = entry(at, id);
      return {
        clause: '#duepk = :duepk, #duesk = :duesk',
        names: { '#duepk': partitionKey, '#duesk': sortKey },
        values: { ':duepk': values[partitionKey], ':duesk': values[sortKey] },
      };
    },
    /** An UpdateExpression's REMOVE clause taking the item out of the queue. */
    remove: { clause: '#duepk, #duesk', names: { '#duepk': partitionKey, '#duesk': sortKey } },
  };
}

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
