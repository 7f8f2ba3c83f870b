import { randomBytes } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { addSeconds, Idempotency } from '@svc/core';
import { keyOf } from './entities/entity.ts';
import { IdempotencyRecord } from './entities/index.ts';
import { conditionHeld, dueItems, isConditionFailure, type Table } from './table.ts';

const { Status } = IdempotencyRecord;

/** The update that completes an in-progress record; part of the transaction that creates the resource. */
export function completionUpdate({ lock, response }: Idempotency.IdempotencyCompletion) {
  return {
    Key: IdempotencyRecord.key(lock.record),
    UpdateExpression:
      'SET #status = :completed, response_status = :status, response_body = :body REMOVE lock_expires_at',
    ConditionExpression: '#status = :in_progress AND #token = :token',
    ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
    ExpressionAttributeValues: {
      ':completed': Status.Completed,
      ':in_progress': Status.InProgress,
      ':status': response.status,
      ':body': JSON.stringify(response.body),
      ':token': lock.token,
    },
  };
}

type Store = Idempotency.IdempotencyStore;

export function dynamoIdempotencyStore(table: Table): Store {
  return {
    acquire: (input) => acquire(table, input),
    release: (lock) => release(table, lock),
    sweep: (now, limit) => sweep(table, now, limit),
  };
}

async function acquire(
  table: Table,
  { caller, key: idempotencyKey, request_hash, former_hash, now }: Parameters<Store['acquire']>[0],
): ReturnType<Store['acquire']> {
  const record = IdempotencyRecord.recordId(caller, idempotencyKey);
  const sameRequest = (hash: string | undefined) =>
    hash === request_hash || (!!former_hash && hash === former_hash);
  const token = randomBytes(16).toString('hex');
  try {
    await table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: IdempotencyRecord.toItem({
          id: record,
          request_hash,
          token,
          lock_expires_at: addSeconds(now, Idempotency.idempotencyLockSeconds).toISOString(),
          expires_at: addSeconds(now, Idempotency.idempotencyRetentionSeconds).toISOString(),
        }),
        // Free, past retention, or an in-progress lock for the same request whose holder timed out.
        ConditionExpression:
          'attribute_not_exists(pk) OR expires_at <= :now OR (#status = :in_progress AND lock_expires_at <= :now AND request_hash IN (:hash, :former))',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':now': now.toISOString(),
          ':in_progress': Status.InProgress,
          ':hash': request_hash,
          ':former': former_hash ?? request_hash,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'acquired', lock: { record, token } };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = error.Item ? IdempotencyRecord.fromItem(unmarshall(error.Item)) : undefined;
    if (!existing || !sameRequest(existing.request_hash)) return { outcome: 'mismatch' };
    if (existing.status === Status.Completed) {
      return {
        outcome: 'replay',
        status: existing.response_status,
        body: JSON.parse(existing.response_body),
      };
    }
    return { outcome: 'in_flight' };
  }
}

async function release(table: Table, lock: Parameters<Store['release']>[0]): Promise<void> {
  // A lock taken over or completed meanwhile is no longer this request's to give back.
  await conditionHeld(() =>
    table.documents.send(
      new DeleteCommand({
        TableName: table.name,
        Key: IdempotencyRecord.key(lock.record),
        ConditionExpression: '#token = :token AND #status = :in_progress',
        ExpressionAttributeNames: { '#token': 'token', '#status': 'status' },
        ExpressionAttributeValues: { ':token': lock.token, ':in_progress': Status.InProgress },
      }),
    ),
  );
}

async function sweep(table: Table, now: Date, limit: number): Promise<number> {
  let deleted = 0;
  for (const item of await dueItems(table, IdempotencyRecord.retained.until(now), limit)) {
    const gone = await conditionHeld(() =>
      table.documents.send(
        new DeleteCommand({
          TableName: table.name,
          Key: keyOf(item),
          ConditionExpression: 'expires_at <= :now',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      ),
    );
    if (gone) deleted++;
  }
  return deleted;
}
