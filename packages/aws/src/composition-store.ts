import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, Compositions, ErrorCode, type Idempotency, ProblemError } from '@svc/core';
import { DueQueue, globalIndex, type Item } from './entities/entity.ts';
import { Check, Composition, Event, Operation, ProjectQuota } from './entities/index.ts';
import { completionUpdate } from './idempotency-store.ts';
import {
  conditionHeld,
  dueQuery,
  failedConditions,
  getItem,
  getLive,
  isConditionFailure,
  mergedQueryPage,
  queryPage,
  type Table,
} from './table.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Takes one of the project's live-composition places, if one is left. */
function quotaTaken(tableName: string, project: string, quota: number): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: ProjectQuota.key(project),
      UpdateExpression: 'SET item_type = :type ADD live :one',
      ConditionExpression: 'attribute_not_exists(live) OR live < :quota',
      ExpressionAttributeValues: { ':type': ProjectQuota.type, ':one': 1, ':quota': quota },
    },
  };
}

/** Gives the place back; compositions created before quotas were counted may take it below zero. */
function quotaReleased(tableName: string, project: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: ProjectQuota.key(project),
      UpdateExpression: 'SET item_type = :type ADD live :minus',
      ExpressionAttributeValues: { ':type': ProjectQuota.type, ':minus': -1 },
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
    get: (id) => getLive(table, Composition.key(id), clock.now(), Composition.fromItem),

    list(filter, page) {
      if (filter.project !== null) {
        const partition = Composition.ofProject(filter.project);
        return queryPage(table, { index: 'gsi2', partition, newestFirst: true }, page, Composition.fromItem);
      }
      if (filter.projects === null) {
        return queryPage(
          table,
          { index: 'gsi1', partition: Composition.all, newestFirst: true },
          page,
          Composition.fromItem,
        );
      }
      // A caller who reads some projects reads their partitions, not everyone's list filtered:
      // a page costs the same among 100 compositions as among 100,000 (docs/performance.md, Scale).
      const partitions = filter.projects.map(Composition.ofProject);
      return mergedQueryPage(table, { index: 'gsi2', partitions }, page, Composition.fromItem);
    },

    async create({ quota, composition, operation, events, idempotency }) {
      const items: TransactItem[] = [
        ...(quota === undefined ? [] : [quotaTaken(table.name, composition.project, quota)]),
        put(Composition.toItem(composition), { ConditionExpression: 'attribute_not_exists(pk)' }),
        put(Operation.toItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }),
        ...events.map((event) => put(Event.toItem(event))),
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
        put(Composition.toItem(composition), {
          ConditionExpression: 'lock_version = :expected',
          ExpressionAttributeValues: { ':expected': expected_lock_version },
        }),
      ];
      if (operation)
        items.push(put(Operation.toItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }));
      if (supersede) {
        items.push({
          Update: {
            TableName: table.name,
            Key: Operation.key(composition.id, supersede.operation_id),
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
              ':ttl': Operation.finishedTtl(composition.updated_at).ttl,
            },
          },
        });
      }
      items.push(...events.map((event) => put(Event.toItem(event))));
      return (await transact(items)) === null;
    },

    async commit({ composition, operation, events = [], checks = [] }) {
      const items: TransactItem[] = [];
      if (composition) {
        const finished = composition.record.phase === Compositions.Phase.Destroyed;
        items.push(
          put(Composition.toItem(composition.record), {
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
          put(Operation.toItem(operation.record), {
            ConditionExpression: 'lock_version = :expected',
            ExpressionAttributeValues: { ':expected': operation.expected_lock_version },
          }),
        );
      }
      items.push(...events.map((event) => put(Event.toItem(event))));
      items.push(...checks.map((check) => put(Check.toItem(check))));
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

    getOperation: (compositionId, operationId) =>
      getItem(table, Operation.key(compositionId, operationId), Operation.fromItem),

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
        return Attributes ? Operation.fromItem(Attributes) : null;
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
            TransactItems: events.slice(i, i + 100).map((event) => put(Event.toItem(event))),
          }),
        );
      }
    },

    listEvents(compositionId, page) {
      return queryPage(table, { ...Event.of(compositionId), newestFirst: true }, page, Event.fromItem);
    },

    async putCheck(check) {
      await documents.send(new PutCommand({ TableName: table.name, Item: Check.toItem(check) }));
    },

    listChecks(compositionId, page) {
      return queryPage(table, { ...Check.of(compositionId), newestFirst: true }, page, Check.fromItem);
    },

    dueOperations(now, limit) {
      return dueQuery(table, DueQueue.Operations, now, limit, Operation.fromItem);
    },

    expired(now, limit) {
      return dueQuery(table, DueQueue.Expiry, now, limit, Composition.fromItem);
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
  const due = Operation.due(operation.id, dueAt);
  const { partitionKey, sortKey } = globalIndex('due');
  return new UpdateCommand({
    TableName: table.name,
    Key: Operation.key(operation.composition_id, operation.id),
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

function idempotencyCompletion(table: Table, completion: Idempotency.IdempotencyCompletion): TransactItem {
  return { Update: { TableName: table.name, ...completionUpdate(completion) } };
}
