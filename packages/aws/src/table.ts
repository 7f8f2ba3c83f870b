/** What every store shares on the single table: paging, the due index, and telling a failed condition apart. */
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type Cursors, ErrorCode, type Page, type PageRequest, ProblemError, Resources } from '@svc/core';
import {
  type DueQuery,
  epochSeconds,
  globalIndex,
  type IndexName,
  type Item,
  type ItemQuery,
  isLive,
  type MergedQuery,
  type Query,
} from './entities/entity.ts';

/** The table every store writes to: its name and the document client, passed in, never global. */
export interface Table {
  name: string;
  documents: DynamoDBDocumentClient;
  /** Seals page cursors to their list (core's `cursors`, under the installation's key). */
  cursors: Cursors;
}

/** Reads the record an item holds: an entity's `fromItem`. */
export type ReadItem<T> = (item: Item) => T;

const baseKeyAttributes = [Resources.table.partitionKey, Resources.table.sortKey];

/** What a page cursor holds: an item's base key, and its index key when the list reads an index. */
function cursorAttributes(index?: IndexName): readonly string[] {
  if (index === undefined) return baseKeyAttributes;
  const { partitionKey, sortKey } = globalIndex(index);
  return [...baseKeyAttributes, partitionKey, sortKey];
}

/** A list's identity as its cursors are sealed to: the partition, key prefix, index and filter it reads. */
function listIdentity(table: Table, query: ListQuery): unknown {
  return {
    table: table.name,
    index: query.index ?? null,
    partition: query.partition,
    prefix: query.prefix ?? null,
    filter: query.filter ?? null,
  };
}

/** The cursor of a page: the index keys of its last item, sealed to the list. */
function cursorFrom(table: Table, list: unknown, item: Item, keys: readonly string[]): string {
  return table.cursors.seal(list, Object.fromEntries(keys.map((key) => [key, item[key]])));
}

/**
 * The ExclusiveStartKey a cursor holds, refusing (400, before any read) a cursor this list did not
 * seal: another list's, another filter's, or one made or altered by hand.
 */
function startKeyFrom(
  table: Table,
  list: unknown,
  cursor: string | null,
  keys: readonly string[],
): Item | undefined {
  if (cursor === null) return undefined;
  const value = table.cursors.open(list, cursor);
  const valid =
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === keys.length &&
    keys.every((key) => typeof (value as Item)[key] === 'string');
  if (!valid) {
    throw new ProblemError(ErrorCode.InvalidQuery, 'after is not a cursor this list returned.', {
      errors: [{ path: 'after', message: 'unknown cursor' }],
    });
  }
  return value as Item;
}

/** A page from `limit + 1` items: the extra one only says whether there is a next page. */
function pageOf<T>(
  items: Item[],
  page: PageRequest,
  read: ReadItem<T>,
  next: (last: Item) => string,
): Page<T> {
  const more = items.length > page.limit;
  const slice = items.slice(0, page.limit);
  const last = slice.at(-1);
  return {
    items: slice.map(read),
    next_cursor: more && last ? next(last) : null,
  };
}

/** One list: a Query (an entity's access pattern, or a partition of the table), optionally filtered. */
export interface ListQuery extends Query {
  /** A FilterExpression with its names and values, applied after the key condition. */
  readonly filter?: { expression: string; names?: Record<string, string>; values: Item };
}

/**
 * A filter keeping only items whose `attribute` is one of `values` (at most 100, DynamoDB's bound
 * for IN); null for no filter. An empty set is a filter nothing passes.
 */
export function oneOf(attribute: string, values: readonly string[] | null): ListQuery['filter'] {
  if (values === null) return undefined;
  const names = (values.length ? values : ['']).slice(0, 100).map((_, i) => `:in${i}`);
  return {
    expression: `#in IN (${names.join(', ')})`,
    names: { '#in': attribute },
    values: Object.fromEntries(names.map((name, i) => [name, values[i] ?? '\u0000'])),
  };
}

/** One page of a list; a filter can leave a DynamoDB page short, so it reads on until the page is full or the list ends. */
export async function queryPage<T>(
  table: Table,
  query: ListQuery,
  page: PageRequest,
  read: ReadItem<T>,
): Promise<Page<T>> {
  const keys = cursorAttributes(query.index);
  const partitionKey = query.index ? globalIndex(query.index).partitionKey : Resources.table.partitionKey;
  const list = listIdentity(table, query);
  const items: Item[] = [];
  let start = startKeyFrom(table, list, page.after, keys);
  do {
    const result = await table.documents.send(
      new QueryCommand({
        TableName: table.name,
        ...(query.index ? { IndexName: query.index } : {}),
        KeyConditionExpression:
          query.prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
        ...(query.filter ? { FilterExpression: query.filter.expression } : {}),
        ExpressionAttributeNames: {
          '#pk': partitionKey,
          ...(query.prefix === undefined ? {} : { '#sk': Resources.table.sortKey }),
          ...query.filter?.names,
        },
        ExpressionAttributeValues: {
          ':pk': query.partition,
          ...(query.prefix === undefined ? {} : { ':prefix': query.prefix }),
          ...query.filter?.values,
        },
        ScanIndexForward: !query.newestFirst,
        Limit: page.limit + 1,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start && items.length <= page.limit);
  return pageOf(items.slice(0, page.limit + 1), page, read, (last) => cursorFrom(table, list, last, keys));
}

/**
 * One page of a merged list: each partition is read from just before the cursor's sort key (at
 * most a page and one from each), and the newest of them make the page. Sort keys are unique
 * across the partitions (they end in the item's id), so the last one shown is the whole cursor.
 * A page costs a Query of at most `limit + 1` items per partition, however long the index is.
 */
export async function mergedQueryPage<T>(
  table: Table,
  query: MergedQuery,
  page: PageRequest,
  read: ReadItem<T>,
): Promise<Page<T>> {
  const { partitionKey, sortKey } = globalIndex(query.index);
  const list = { table: table.name, index: query.index, partitions: [...query.partitions].sort() };
  const before = startKeyFrom(table, list, page.after, [sortKey])?.[sortKey];
  const results = await Promise.all(
    query.partitions.map((partition) =>
      table.documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: query.index,
          KeyConditionExpression: before === undefined ? '#pk = :pk' : '#pk = :pk AND #sk < :before',
          ExpressionAttributeNames: {
            '#pk': partitionKey,
            ...(before === undefined ? {} : { '#sk': sortKey }),
          },
          ExpressionAttributeValues: {
            ':pk': partition,
            ...(before === undefined ? {} : { ':before': before }),
          },
          ScanIndexForward: false,
          Limit: page.limit + 1,
        }),
      ),
    ),
  );
  const newest = results
    .flatMap((result) => result.Items ?? [])
    .sort((a, b) => (String(a[sortKey]) < String(b[sortKey]) ? 1 : -1))
    .slice(0, page.limit + 1);
  return pageOf(newest, page, read, (last) => cursorFrom(table, list, last, [sortKey]));
}

/** Raw items of a queue of the sparse `due` index (those due by the query's bound), oldest first. */
export async function dueItems(table: Table, query: DueQuery, limit: number): Promise<Item[]> {
  const { partitionKey, sortKey } = globalIndex(query.index);
  const bounded = query.until !== undefined;
  const result = await table.documents.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: query.index,
      KeyConditionExpression: bounded ? '#pk = :pk AND #sk <= :until' : '#pk = :pk',
      ExpressionAttributeNames: { '#pk': partitionKey, ...(bounded ? { '#sk': sortKey } : {}) },
      ExpressionAttributeValues: { ':pk': query.partition, ...(bounded ? { ':until': query.until } : {}) },
      Limit: limit,
    }),
  );
  return result.Items ?? [];
}

export async function dueQuery<T>(
  table: Table,
  query: DueQuery,
  limit: number,
  read: ReadItem<T>,
): Promise<T[]> {
  return (await dueItems(table, query, limit)).map(read);
}

/** Which items of a cancelled transaction failed their condition. */
export function failedConditions(error: unknown): boolean[] | null {
  if (!(error instanceof TransactionCanceledException)) return null;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code === 'ConditionalCheckFailed');
}

export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return error instanceof ConditionalCheckFailedException;
}

/** Runs a conditional write: false when its condition failed, which is an answer, not an error. */
export async function conditionHeld(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The record at `key`; null when absent. Read consistently unless `consistent` is false. */
export async function getItem<T>(
  table: Table,
  key: Item,
  read: ReadItem<T>,
  { consistent = true }: { consistent?: boolean } = {},
): Promise<T | null> {
  const { Item: item } = await table.documents.send(
    new GetCommand({ TableName: table.name, Key: key, ConsistentRead: consistent }),
  );
  return item ? read(item) : null;
}

/** The record at `key`, read consistently; null when absent or past its `ttl` (DynamoDB deletes late). */
export function getLive<T>(table: Table, key: Item, now: Date, read: ReadItem<T>): Promise<T | null> {
  return getItem(table, key, (item) => (isLive(item, now) ? read(item) : null));
}

/**
 * Writes `item` over the live item whose `counter` is `expected`, or, when `expected` is 0, where
 * no live item is. False when that condition failed.
 */
export function putVersioned(
  table: Table,
  item: Item,
  version: { counter: string; expected: number },
  now: Date,
): Promise<boolean> {
  const { counter, expected } = version;
  return conditionHeld(() =>
    table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: item,
        ConditionExpression:
          expected === 0
            ? 'attribute_not_exists(pk) OR #ttl <= :now'
            : `${counter} = :expected AND #ttl > :now`,
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: {
          ':now': epochSeconds(now),
          ...(expected === 0 ? {} : { ':expected': expected }),
        },
      }),
    ),
  );
}

/** The raw item an access pattern finds at exactly its partition and sort key; undefined when there is none. */
export async function indexedItem(table: Table, query: ItemQuery): Promise<Item | undefined> {
  const { partitionKey, sortKey } = globalIndex(query.index);
  const found = await table.documents.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: query.index,
      KeyConditionExpression: '#pk = :pk AND #sk = :id',
      ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
      ExpressionAttributeValues: { ':pk': query.partition, ':id': query.sort },
    }),
  );
  return found.Items?.[0];
}

/** Every item of a partition (or of a sort key prefix of it) of the table or an index, page after page. */
export async function queryAll(
  table: Table,
  query: Pick<Query, 'index' | 'partition' | 'prefix'> & { consistent?: boolean },
): Promise<Item[]> {
  const { index, partition, prefix } = query;
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const result = await table.documents.send(
      new QueryCommand({
        TableName: table.name,
        ...(index ? { IndexName: index } : {}),
        KeyConditionExpression:
          prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
        ExpressionAttributeNames: {
          '#pk': index ? globalIndex(index).partitionKey : Resources.table.partitionKey,
          ...(prefix === undefined ? {} : { '#sk': Resources.table.sortKey }),
        },
        ExpressionAttributeValues: {
          ':pk': partition,
          ...(prefix === undefined ? {} : { ':prefix': prefix }),
        },
        ...(query.consistent ? { ConsistentRead: true } : {}),
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start);
  return items;
}

/** Writes `item` over whatever is at its key. */
export async function putItem(table: Table, item: Item): Promise<void> {
  await table.documents.send(new PutCommand({ TableName: table.name, Item: item }));
}
