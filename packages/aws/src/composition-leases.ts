/**
 * The composition store's operation leases: a chain takes, renews and gives up its operation's
 * lease, and the redispatch sweep takes over one whose `due_at` passed. Each is one conditional
 * update that also moves the operation's entry in the `due` index.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Compositions, Operations } from '@svc/core';
import { Operation } from './entities/index.ts';
import { conditionHeld, isConditionFailure, type Table } from './table.ts';

type Store = Compositions.CompositionStore;

const unfinishedStatus = {
  ':pending': Operations.OperationStatus.Pending,
  ':running': Operations.OperationStatus.Running,
};

export function takeOver(
  table: Table,
  operation: Parameters<Store['takeOver']>[0],
  dueAt: string,
): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      operationUpdate(table, operation, dueAt, {
        set: 'lease_holder = :none, lock_version = lock_version + :one',
        condition: 'due_at = :seen AND #status IN (:pending, :running)',
        values: { ':none': null, ':one': 1, ':seen': operation.due_at, ...unfinishedStatus },
      }),
    ),
  );
}

export async function takeLease(
  table: Table,
  operation: Operations.Operation,
  { holder, until, now }: Parameters<Store['takeLease']>[1],
): Promise<Operations.Operation | null> {
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
    const { Attributes } = await table.documents.send(
      new UpdateCommand({ ...update.input, ReturnValues: 'ALL_NEW' }),
    );
    return Attributes ? Operation.fromItem(Attributes) : null;
  } catch (error) {
    if (isConditionFailure(error)) return null;
    throw error;
  }
}

export function releaseLease(
  table: Table,
  operation: Parameters<Store['releaseLease']>[0],
  { holder, dueAt }: Parameters<Store['releaseLease']>[1],
): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      operationUpdate(table, operation, dueAt, {
        set: 'lease_holder = :none',
        condition: 'lease_holder = :holder AND #status IN (:pending, :running)',
        values: { ':holder': holder, ':none': null, ...unfinishedStatus },
      }),
    ),
  );
}

export function renewLease(
  table: Table,
  operation: Parameters<Store['renewLease']>[0],
  { holder, until }: Parameters<Store['renewLease']>[1],
): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      operationUpdate(table, operation, until, {
        set: '',
        condition: 'lease_holder = :holder AND #status = :running',
        values: { ':holder': holder, ':running': Operations.OperationStatus.Running },
      }),
    ),
  );
}

/**
 * An update of an operation's `due_at` (and its entry in the `due` index), plus `set`, under
 * `condition`; `#status` names the status attribute.
 */
function operationUpdate(
  table: Table,
  operation: Pick<Operations.Operation, 'composition_id' | 'id'>,
  dueAt: string,
  { set, condition, values }: { set: string; condition: string; values: Record<string, unknown> },
): UpdateCommand {
  const due = Operation.due.set(dueAt, operation.id);
  return new UpdateCommand({
    TableName: table.name,
    Key: Operation.key(operation.composition_id, operation.id),
    UpdateExpression: `SET due_at = :due, ${due.clause}${set ? `, ${set}` : ''}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: { '#status': 'status', ...due.names },
    ExpressionAttributeValues: { ':due': dueAt, ...due.values, ...values },
  });
}
