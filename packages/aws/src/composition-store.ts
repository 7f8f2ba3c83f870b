import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  type Clock,
  Compositions,
  ErrorCode,
  type Idempotency,
  ProblemError,
  type Verification,
} from '@svc/core';
import { completionUpdate } from './idempotency-store.ts';
import * as Keys from './keys.ts';
import {
  conditionHeld,
  dueQuery,
  epochSeconds,
  failedConditions,
  type Item,
  isConditionFailure,
  oneOf,
  queryPage,
  stripKeys,
  type Table,
} from './table.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const retentionSeconds = 30 * 24 * 3600;
const eventRetentionSeconds = 31 * 24 * 3600;

/** The item for a composition: index attributes exist only while the composition belongs in that index. */
export function compositionItem(record: Compositions.CompositionRecord): Item {
  const listed = record.phase !== Compositions.Phase.Destroyed;
  const expiring =
    record.phase !== Compositions.Phase.Destroying && record.phase !== Compositions.Phase.Destroyed;
  return {
    ...Keys.composition(record.id),
    item_type: Keys.ItemType.Composition,
    ...record,
    ...(listed ? Keys.listedComposition(record) : {}),
    ...(expiring ? Keys.dueEntry(Keys.DueQueue.Expiry, record.expires_at, record.id) : {}),
    ...(record.destroyed_at ? { ttl: epochSeconds(record.destroyed_at) + retentionSeconds } : {}),
  };
}

function operationItem(operation: Compositions.Operation): Item {
  const unfinished =
    operation.status === Compositions.OperationStatus.Pending ||
    operation.status === Compositions.OperationStatus.Running;
  return {
    ...Keys.operation(operation.composition_id, operation.id),
    item_type: Keys.ItemType.Operation,
    ...operation,
    ...(unfinished && operation.due_at
      ? Keys.dueEntry(Keys.DueQueue.Operations, operation.due_at, operation.id)
      : {}),
    ...(unfinished ? {} : { ttl: epochSeconds(operation.updated_at) + retentionSeconds }),
  };
}

function eventItem(event: Compositions.CompositionEvent): Item {
  return {
    ...Keys.event(event),
    item_type: Keys.ItemType.Event,
    ...event,
    ttl: epochSeconds(event.at) + eventRetentionSeconds,
  };
}

/** Takes one of the project's live-composition places, if one is left. */
function quotaTaken(tableName: string, project: string, quota: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: Keys.projectQuota(project),
      UpdateExpression: 'SET item_type = :type ADD live :one',
      ConditionExpression: 'attribute_not_exists(live) OR live < :quota',
      ExpressionAttributeValues: { ':type': Keys.ItemType.ProjectQuota, ':one': 1, ':quota': quota },
    },
  };
}

/** Gives the place back; compositions created before quotas were counted may take it below zero. */
function quotaReleased(tableName: string, project: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: Keys.projectQuota(project),
      UpdateExpression: 'SET item_type = :type ADD live :minus',
      ExpressionAttributeValues: { ':type': Keys.ItemType.ProjectQuota, ':minus': -1 },
    },
  };
}

export function dynamoCompositionStore(table: Table, clock: Clock): Compositions.CompositionStore {
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
        new GetCommand({ TableName: table.name, Key: Keys.composition(id), ConsistentRead: true }),
      );
      if (!item) return null;
      if (typeof item.ttl === 'number' && item.ttl * 1000 <= clock.now().getTime()) return null;
      return stripKeys<Compositions.CompositionRecord>(item);
    },

    list(filter, page) {
      const query =
        filter.project === null
          ? { index: 'gsi1' as const, partition: Keys.allCompositions }
          : { index: 'gsi2' as const, partition: Keys.projectCompositions(filter.project) };
      const only = filter.project === null ? oneOf('project', filter.projects) : undefined;
      return queryPage<Compositions.CompositionRecord>(
        table,
        { ...query, newestFirst: true, ...(only ? { filter: only } : {}) },
        page,
      );
    },

    async create({ quota, composition, operation, events, idempotency }) {
      const items: TransactItem[] = [
        ...(quota === undefined ? [] : [quotaTaken(table.name, composition.project, quota)]),
        put(compositionItem(composition), { ConditionExpression: 'attribute_not_exists(pk)' }),
        put(operationItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }),
        ...events.map((event) => put(eventItem(event))),
      ];
      if (idempotency) items.push(idempotencyCompletion(table, idempotency));
      const failed = await transact(items);
      if (!failed) return;
      if (quota !== undefined && failed[0]) {
        throw new ProblemError(
          ErrorCode.QuotaExceeded,
          `Project "${composition.project}" already has ${quota} live compositions, its quota; destroy one first.`,
        );
      }
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
            Key: Keys.operation(composition.id, supersede.operation_id),
            UpdateExpression:
              'SET #status = :superseded, updated_at = :now, lock_version = lock_version + :one, #ttl = :ttl REMOVE duepk, duesk',
            ConditionExpression: '#status IN (:pending, :running)',
            ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':superseded': Compositions.OperationStatus.Superseded,
              ':pending': Compositions.OperationStatus.Pending,
              ':running': Compositions.OperationStatus.Running,
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

    async commit({ composition, operation, events = [], checks = [] }) {
      const items: TransactItem[] = [];
      if (composition) {
        const finished = composition.record.phase === Compositions.Phase.Destroyed;
        items.push(
          put(compositionItem(composition.record), {
            // Only the write that finishes the destroy gives the project's quota place back.
            ConditionExpression: finished
              ? 'lock_version = :expected AND #phase <> :destroyed'
              : 'lock_version = :expected',
            ...(finished ? { ExpressionAttributeNames: { '#phase': 'phase' } } : {}),
            ExpressionAttributeValues: {
              ':expected': composition.expected_lock_version,
              ...(finished ? { ':destroyed': Compositions.Phase.Destroyed } : {}),
            },
          }),
        );
        if (finished) items.push(quotaReleased(table.name, composition.record.project));
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
      items.push(...checks.map((check) => put(checkItem(check))));
      if (items.length === 0) return true;
      // One item (a chain giving its lease up with nothing else to record): a conditional put, at
      // half a transaction's write units.
      const [only] = items;
      if (items.length === 1 && only?.Put) {
        const single = only.Put;
        return conditionHeld(() => documents.send(new PutCommand(single)));
      }
      return (await transact(items)) === null;
    },

    async getOperation(compositionId, operationId) {
      const { Item: item } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: Keys.operation(compositionId, operationId),
          ConsistentRead: true,
        }),
      );
      return item ? stripKeys<Compositions.Operation>(item) : null;
    },

    takeOver(operation, dueAt) {
      return conditionHeld(() =>
        documents.send(
          operationUpdate(table, operation, dueAt, {
            set: 'lease_holder = :none, lock_version = lock_version + :one',
            condition: 'due_at = :seen AND #status IN (:pending, :running)',
            values: { ':none': null, ':one': 1, ':seen': operation.due_at, ...unfinishedStatus },
          }),
        ),
      );
    },

    async takeLease(operation, { holder, until, now }) {
      const update = operationUpdate(table, operation, until, {
        set: 'lease_holder = :holder, lock_version = lock_version + :one',
        // Free (never taken, or handed back), already this chain's, or lapsed.
        condition:
          'lock_version = :read AND #status IN (:pending, :running) AND (attribute_not_exists(lease_holder) OR attribute_type(lease_holder, :null) OR lease_holder = :holder OR due_at <= :now)',
        values: {
          ':holder': holder,
          ':one': 1,
          ':read': operation.lock_version,
          ':null': 'NULL',
          ':now': now.toISOString(),
          ...unfinishedStatus,
        },
      });
      try {
        const { Attributes } = await documents.send(
          new UpdateCommand({ ...update.input, ReturnValues: 'ALL_NEW' }),
        );
        return Attributes ? stripKeys<Compositions.Operation>(Attributes) : null;
      } catch (error) {
        if (isConditionFailure(error)) return null;
        throw error;
      }
    },

    releaseLease(operation, { holder, dueAt }) {
      return conditionHeld(() =>
        documents.send(
          operationUpdate(table, operation, dueAt, {
            set: 'lease_holder = :none',
            condition: 'lease_holder = :holder AND #status IN (:pending, :running)',
            values: { ':holder': holder, ':none': null, ...unfinishedStatus },
          }),
        ),
      );
    },

    renewLease(operation, { holder, until }) {
      return conditionHeld(() =>
        documents.send(
          operationUpdate(table, operation, until, {
            set: '',
            condition: 'lease_holder = :holder AND #status = :running',
            values: { ':holder': holder, ':running': Compositions.OperationStatus.Running },
          }),
        ),
      );
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

    listEvents(compositionId, page) {
      return queryPage<Compositions.CompositionEvent>(
        table,
        { ...Keys.eventsOf(compositionId), newestFirst: true },
        page,
      );
    },

    async putCheck(check) {
      await documents.send(new PutCommand({ TableName: table.name, Item: checkItem(check) }));
    },

    listChecks(compositionId, page) {
      return queryPage<Verification.CheckRecord>(
        table,
        { ...Keys.checksOf(compositionId), newestFirst: true },
        page,
      );
    },

    dueOperations(now, limit) {
      return dueQuery<Compositions.Operation>(table, Keys.DueQueue.Operations, now, limit);
    },

    expired(now, limit) {
      return dueQuery<Compositions.CompositionRecord>(table, Keys.DueQueue.Expiry, now, limit);
    },
  };
}

const unfinishedStatus = {
  ':pending': Compositions.OperationStatus.Pending,
  ':running': Compositions.OperationStatus.Running,
};

/**
 * An update of an operation's `due_at` (and its entry in the `due` index), plus `set`, under
 * `condition`; `#status` names the status attribute.
 */
function operationUpdate(
  table: Table,
  operation: Pick<Compositions.Operation, 'composition_id' | 'id'>,
  dueAt: string,
  { set, condition, values }: { set: string; condition: string; values: Record<string, unknown> },
): UpdateCommand {
  const due = Keys.dueEntry(Keys.DueQueue.Operations, dueAt, operation.id);
  const { partitionKey, sortKey } = Keys.globalIndex('due');
  return new UpdateCommand({
    TableName: table.name,
    Key: Keys.operation(operation.composition_id, operation.id),
    UpdateExpression: `SET due_at = :due, #duepk = :duepk, #duesk = :duesk${set ? `, ${set}` : ''}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#status': 'status', '#duepk': partitionKey, '#duesk': sortKey },
    ExpressionAttributeValues: {
      ':due': dueAt,
      ':duepk': due[partitionKey],
      ':duesk': due[sortKey],
      ...values,
    },
  });
}

function checkItem(check: Verification.CheckRecord): Item {
  return {
    ...Keys.check(check),
    item_type: Keys.ItemType.Check,
    ...check,
    ttl: epochSeconds(check.ran_at) + eventRetentionSeconds,
  };
}

function idempotencyCompletion(table: Table, completion: Idempotency.IdempotencyCompletion): TransactItem {
  return { Update: { TableName: table.name, ...completionUpdate(completion) } };
}
