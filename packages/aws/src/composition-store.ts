import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  type CheckRecord,
  type Clock,
  type CompositionEvent,
  type CompositionRecord,
  type CompositionStore,
  ErrorCode,
  type IdempotencyCompletion,
  type Operation,
  OperationStatus,
  type Page,
  type PageRequest,
  Phase,
  ProblemError,
} from '@svc/core';
import { completionUpdate } from './idempotency-store.ts';
import {
  cursorFrom,
  epochSeconds,
  failedConditions,
  type Item,
  isConditionFailure,
  startKeyFrom,
  stripKeys,
  type Table,
} from './table.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const retentionSeconds = 30 * 24 * 3600;
const eventRetentionSeconds = 31 * 24 * 3600;

export const compositionKey = (id: string) => ({ pk: `COMP#${id}`, sk: 'COMP' });
const operationKey = (compositionId: string, operationId: string) => ({
  pk: `COMP#${compositionId}`,
  sk: `OP#${operationId}`,
});

/** The item for a composition: index attributes exist only while the composition belongs in that index. */
export function compositionItem(record: CompositionRecord): Item {
  const listed = record.phase !== Phase.Destroyed;
  const expiring = record.phase !== Phase.Destroying && record.phase !== Phase.Destroyed;
  const order = `${record.created_at}#${record.id}`;
  return {
    ...compositionKey(record.id),
    item_type: 'composition',
    ...record,
    ...(listed ? { gsi1pk: 'COMPS', gsi1sk: order, gsi2pk: `COMPS#${record.project}`, gsi2sk: order } : {}),
    ...(expiring ? { duepk: 'EXPIRY', duesk: `${record.expires_at}#${record.id}` } : {}),
    ...(record.destroyed_at ? { ttl: epochSeconds(record.destroyed_at) + retentionSeconds } : {}),
  };
}

function operationItem(operation: Operation): Item {
  const unfinished =
    operation.status === OperationStatus.Pending || operation.status === OperationStatus.Running;
  return {
    ...operationKey(operation.composition_id, operation.id),
    item_type: 'operation',
    ...operation,
    ...(unfinished && operation.due_at ? { duepk: 'OPS', duesk: `${operation.due_at}#${operation.id}` } : {}),
    ...(unfinished ? {} : { ttl: epochSeconds(operation.updated_at) + retentionSeconds }),
  };
}

function eventItem(event: CompositionEvent): Item {
  return {
    pk: `COMP#${event.composition_id}`,
    sk: `EVENT#${event.at}#${event.id}`,
    item_type: 'event',
    ...event,
    ttl: epochSeconds(event.at) + eventRetentionSeconds,
  };
}

const listKeys = {
  all: ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
  project: ['pk', 'sk', 'gsi2pk', 'gsi2sk'],
  events: ['pk', 'sk'],
} as const;

export function dynamoCompositionStore(table: Table, clock: Clock): CompositionStore {
  const { documents } = table;
  const put = (
    item: Item,
    condition: Omit<NonNullable<TransactItem['Put']>, 'TableName' | 'Item'> = {},
  ): TransactItem => ({
    Put: { TableName: table.name, Item: item, ...condition },
  });

  async function transact(items: TransactItem[]): Promise<boolean[] | null> {
    try {
      await documents.send(new TransactWriteCommand({ TransactItems: items }));
      return null;
    } catch (error) {
      const failed = failedConditions(error);
      if (failed?.some(Boolean)) return failed;
      throw error;
    }
  }

  return {
    async get(id) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: compositionKey(id), ConsistentRead: true }),
      );
      if (!item) return null;
      if (typeof item.ttl === 'number' && item.ttl * 1000 <= clock.now().getTime()) return null;
      return stripKeys<CompositionRecord>(item);
    },

    async list(filter, page) {
      const keys = filter.project === null ? listKeys.all : listKeys.project;
      const [indexPk] = filter.project === null ? ['gsi1pk'] : ['gsi2pk'];
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: filter.project === null ? 'gsi1' : 'gsi2',
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': indexPk as string },
          ExpressionAttributeValues: { ':pk': filter.project === null ? 'COMPS' : `COMPS#${filter.project}` },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: startKeyFrom(page.after, keys),
        }),
      );
      return pageOf<CompositionRecord>(result.Items ?? [], page, keys);
    },

    async create({ composition, operation, events, idempotency }) {
      const items: TransactItem[] = [
        put(compositionItem(composition), { ConditionExpression: 'attribute_not_exists(pk)' }),
        put(operationItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }),
        ...events.map((event) => put(eventItem(event))),
      ];
      if (idempotency) items.push(idempotencyCompletion(table, idempotency));
      const failed = await transact(items);
      if (!failed) return;
      if (idempotency && failed.at(-1)) {
        throw new ProblemError(
          ErrorCode.IdempotencyInFlight,
          'This Idempotency-Key was taken over by another request; retry to get its answer.',
        );
      }
      throw new Error(`composition ${composition.id} could not be created: id collision`);
    },

    async replace({ composition, expected_lock_version, operation, supersede, events }) {
      const items: TransactItem[] = [
        put(compositionItem(composition), {
          ConditionExpression: 'lock_version = :expected',
          ExpressionAttributeValues: { ':expected': expected_lock_version },
        }),
      ];
      if (operation)
        items.push(put(operationItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }));
      if (supersede) {
        items.push({
          Update: {
            TableName: table.name,
            Key: operationKey(composition.id, supersede.operation_id),
            UpdateExpression:
              'SET #status = :superseded, updated_at = :now, lock_version = lock_version + :one, #ttl = :ttl REMOVE duepk, duesk',
            ConditionExpression: '#status IN (:pending, :running)',
            ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':superseded': OperationStatus.Superseded,
              ':pending': OperationStatus.Pending,
              ':running': OperationStatus.Running,
              ':now': composition.updated_at,
              ':one': 1,
              ':ttl': epochSeconds(composition.updated_at) + retentionSeconds,
            },
          },
        });
      }
      items.push(...events.map((event) => put(eventItem(event))));
      return (await transact(items)) === null;
    },

    async commit({ composition, operation, events = [] }) {
      const items: TransactItem[] = [];
      if (composition) {
        items.push(
          put(compositionItem(composition.record), {
            ConditionExpression: 'lock_version = :expected',
            ExpressionAttributeValues: { ':expected': composition.expected_lock_version },
          }),
        );
      }
      if (operation) {
        items.push(
          put(operationItem(operation.record), {
            ConditionExpression: 'lock_version = :expected',
            ExpressionAttributeValues: { ':expected': operation.expected_lock_version },
          }),
        );
      }
      items.push(...events.map((event) => put(eventItem(event))));
      if (items.length === 0) return true;
      return (await transact(items)) === null;
    },

    async getOperation(compositionId, operationId) {
      const { Item: item } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: operationKey(compositionId, operationId),
          ConsistentRead: true,
        }),
      );
      return item ? stripKeys<Operation>(item) : null;
    },

    async replaceOperation(operation, expected) {
      try {
        await documents.send(
          new PutCommand({
            TableName: table.name,
            Item: operationItem(operation),
            ConditionExpression: 'lock_version = :expected',
            ExpressionAttributeValues: { ':expected': expected },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async appendEvents(events) {
      for (let i = 0; i < events.length; i += 100) {
        await documents.send(
          new TransactWriteCommand({
            TransactItems: events.slice(i, i + 100).map((event) => put(eventItem(event))),
          }),
        );
      }
    },

    async listEvents(compositionId, page) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `COMP#${compositionId}`, ':prefix': 'EVENT#' },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: startKeyFrom(page.after, listKeys.events),
        }),
      );
      return pageOf<CompositionEvent>(result.Items ?? [], page, listKeys.events);
    },

    async putCheck(check) {
      await documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            pk: `COMP#${check.composition_id}`,
            sk: `CHECK#${check.ran_at}#${check.id}`,
            item_type: 'check',
            ...check,
            ttl: epochSeconds(check.ran_at) + eventRetentionSeconds,
          },
        }),
      );
    },

    async listChecks(compositionId, page) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': `COMP#${compositionId}`, ':prefix': 'CHECK#' },
          ScanIndexForward: false,
          Limit: page.limit + 1,
          ExclusiveStartKey: startKeyFrom(page.after, listKeys.events),
        }),
      );
      return pageOf<CheckRecord>(result.Items ?? [], page, listKeys.events);
    },

    async dueOperations(now, limit) {
      return dueQuery<Operation>(table, 'OPS', now, limit);
    },

    async expired(now, limit) {
      return dueQuery<CompositionRecord>(table, 'EXPIRY', now, limit);
    },
  };
}

function idempotencyCompletion(table: Table, completion: IdempotencyCompletion): TransactItem {
  return { Update: { TableName: table.name, ...completionUpdate(completion) } };
}

/** Raw items of the sparse `due` index under `partition` that are due at `now`, oldest first. */
export async function dueItems(table: Table, partition: string, now: Date, limit: number): Promise<Item[]> {
  const result = await table.documents.send(
    new QueryCommand({
      TableName: table.name,
      IndexName: 'due',
      KeyConditionExpression: 'duepk = :pk AND duesk <= :now',
      ExpressionAttributeValues: { ':pk': partition, ':now': `${now.toISOString()}#~` },
      Limit: limit,
    }),
  );
  return result.Items ?? [];
}

async function dueQuery<T>(table: Table, partition: string, now: Date, limit: number): Promise<T[]> {
  return (await dueItems(table, partition, now, limit)).map((item) => stripKeys<T>(item));
}

/** A page from `limit + 1` items: the extra one only says whether there is a next page. */
export function pageOf<T>(items: Item[], page: PageRequest, keys: readonly string[]): Page<T> {
  const more = items.length > page.limit;
  const slice = items.slice(0, page.limit);
  const last = slice.at(-1);
  return {
    items: slice.map((item) => stripKeys<T>(item)),
    next_cursor: more && last ? cursorFrom(last, keys) : null,
  };
}
