/**
 * The composition store's writes: a composition created, replaced or moved on by the worker with
 * its operations, events and checks, all or nothing, and the project's live-composition quota kept
 * in the same transaction.
 */
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  Catalog,
  Compositions,
  ErrorCode,
  type Idempotency,
  Operations,
  ProblemError,
  type Rollout,
} from '@svc/core';
import type { Item } from './entities/entity.ts';
import { Check, Composition, Event, NamespaceClaim, Operation, ProjectQuota } from './entities/index.ts';
import { completionUpdate } from './idempotency-store.ts';
import { conditionHeld, failedConditions, getItem, type Table } from './table.ts';

type Store = Rollout.RolloutStore;
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export async function create(
  table: Table,
  { quota, namespace, composition, operation, events, idempotency }: Parameters<Store['create']>[0],
): Promise<void> {
  const claim = put(table, NamespaceClaim.toItem(namespace), {
    ConditionExpression: 'attribute_not_exists(pk) OR #project = :project',
    ExpressionAttributeNames: { '#project': 'project' },
    ExpressionAttributeValues: { ':project': namespace.project },
  });
  const items: TransactItem[] = [
    ...(quota === undefined ? [] : [quotaTaken(table.name, composition.project, quota)]),
    claim,
    put(table, Composition.toItem(composition), { ConditionExpression: 'attribute_not_exists(pk)' }),
    put(table, Operation.toItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }),
    ...events.map((event) => put(table, Event.toItem(event))),
  ];
  if (idempotency) items.push(idempotencyCompletion(table, idempotency));
  const failed = await transact(table, items);
  if (!failed) return;
  if (quota !== undefined && failed[0]) {
    throw new ProblemError(
      ErrorCode.QuotaExceeded,
      `Project "${composition.project}" already has ${quota} live compositions, its quota; destroy one first.`,
    );
  }
  if (failed[quota === undefined ? 0 : 1]) {
    const holder = await getItem(table, NamespaceClaim.key(namespace), NamespaceClaim.fromItem);
    throw new ProblemError(
      ErrorCode.NamespaceTaken,
      `${holder ? Catalog.describeClaim(holder) : `namespace "${namespace.namespace}" is another project's`} now: project "${namespace.project}" gave it up after this composition was planned; plan it again.`,
    );
  }
  if (idempotency && failed.at(-1)) {
    throw new ProblemError(
      ErrorCode.IdempotencyInFlight,
      'This Idempotency-Key was taken over by another request; retry to get its answer.',
    );
  }
  throw new Error(`composition ${composition.id} could not be created: id collision`);
}

export async function replace(
  table: Table,
  { composition, expected_lock_version, operation, supersede, events }: Parameters<Store['replace']>[0],
): Promise<boolean> {
  const items: TransactItem[] = [
    put(table, Composition.toItem(composition), {
      ConditionExpression: 'lock_version = :expected',
      ExpressionAttributeValues: { ':expected': expected_lock_version },
    }),
  ];
  if (operation)
    items.push(put(table, Operation.toItem(operation), { ConditionExpression: 'attribute_not_exists(pk)' }));
  if (supersede) items.push(superseded(table, composition, supersede.operation_id));
  items.push(...events.map((event) => put(table, Event.toItem(event))));
  return (await transact(table, items)) === null;
}

/** Marks the operation in flight superseded, if it is still unfinished, and takes it off the `due` index. */
function superseded(
  table: Table,
  composition: Compositions.CompositionRecord,
  operationId: string,
): TransactItem {
  return {
    Update: {
      TableName: table.name,
      Key: Operation.key(composition.id, operationId),
      UpdateExpression: `SET #status = :superseded, updated_at = :now, lock_version = lock_version + :one, #ttl = :ttl REMOVE ${Operation.due.remove.clause}`,
      ConditionExpression: '#status IN (:pending, :running)',
      ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl', ...Operation.due.remove.names },
      ExpressionAttributeValues: {
        ':superseded': Operations.OperationStatus.Superseded,
        ':pending': Operations.OperationStatus.Pending,
        ':running': Operations.OperationStatus.Running,
        ':now': composition.updated_at,
        ':one': 1,
        ':ttl': Operation.finishedTtl(composition.updated_at).ttl,
      },
    },
  };
}

export async function commit(
  table: Table,
  { composition, operation, events = [], checks = [] }: Parameters<Store['commit']>[0],
): Promise<boolean> {
  const items: TransactItem[] = composition ? compositionCommitted(table, composition) : [];
  if (operation) {
    items.push(
      put(table, Operation.toItem(operation.record), {
        ConditionExpression: 'lock_version = :expected',
        ExpressionAttributeValues: { ':expected': operation.expected_lock_version },
      }),
    );
  }
  items.push(...events.map((event) => put(table, Event.toItem(event))));
  items.push(...checks.map((check) => put(table, Check.toItem(check))));
  if (items.length === 0) return true;
  // One item (a chain giving its lease up with nothing else to record): a conditional put, at
  // half a transaction's write units.
  const [only] = items;
  if (items.length === 1 && only?.Put) {
    const single = only.Put;
    return conditionHeld(() => table.documents.send(new PutCommand(single)));
  }
  return (await transact(table, items)) === null;
}

/** The composition's conditional write in a commit; finishing a destroy gives its quota place back, if it took one. */
function compositionCommitted(
  table: Table,
  { record, expected_lock_version }: NonNullable<Parameters<Store['commit']>[0]['composition']>,
): TransactItem[] {
  const finished = record.phase === Compositions.Phase.Destroyed;
  const write = put(table, Composition.toItem(record), {
    // Only the write that finishes the destroy gives the project's quota place back.
    ConditionExpression: finished
      ? 'lock_version = :expected AND #phase <> :destroyed'
      : 'lock_version = :expected',
    ...(finished ? { ExpressionAttributeNames: { '#phase': 'phase' } } : {}),
    ExpressionAttributeValues: {
      ':expected': expected_lock_version,
      ...(finished ? { ':destroyed': Compositions.Phase.Destroyed } : {}),
    },
  });
  const releases = finished && Compositions.holdsQuotaPlace(record);
  return releases ? [write, quotaReleased(table.name, record.project)] : [write];
}

/** Events in transactions of at most 100 items, DynamoDB's bound. */
export async function appendEvents(
  table: Table,
  events: readonly Compositions.CompositionEvent[],
): Promise<void> {
  for (let i = 0; i < events.length; i += 100) {
    await table.documents.send(
      new TransactWriteCommand({
        TransactItems: events.slice(i, i + 100).map((event) => put(table, Event.toItem(event))),
      }),
    );
  }
}

function put(
  table: Table,
  item: Item,
  condition: Omit<NonNullable<TransactItem['Put']>, 'TableName' | 'Item'> = {},
): TransactItem {
  return { Put: { TableName: table.name, Item: item, ...condition } };
}

/** Runs the transaction: null when it was written, else which items failed their condition. */
async function transact(table: Table, items: TransactItem[]): Promise<boolean[] | null> {
  try {
    await table.documents.send(new TransactWriteCommand({ TransactItems: items }));
    return null;
  } catch (error) {
    const failed = failedConditions(error);
    if (failed?.some(Boolean)) return failed;
    throw error;
  }
}

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

function idempotencyCompletion(table: Table, completion: Idempotency.IdempotencyCompletion): TransactItem {
  return { Update: { TableName: table.name, ...completionUpdate(completion) } };
}
