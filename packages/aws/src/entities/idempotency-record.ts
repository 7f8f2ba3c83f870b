/**
 * An Idempotency-Key record: taken in progress by a conditional put, completed in the transaction
 * that creates the resource, kept 24 hours in the `due` index for the idempotency sweep.
 */
import { sha256 } from '@svc/core';
import * as v from 'valibot';
import { DueQueue, dueQueue, epochSeconds, type Item, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'idempotency';

export const Status = { InProgress: 'in_progress', Completed: 'completed' } as const;

/** The record id is a hash, so the raw Idempotency-Key is never stored. */
export const recordId = (subject: string, idempotencyKey: string) => sha256(`${subject}\n${idempotencyKey}`);

export const key = (recordId: string): Key => ({ pk: `IDEM#${recordId}`, sk: 'IDEM' });

/** The idempotency sweep's queue: a record waits in it until `expires_at`. */
export const retained = dueQueue(DueQueue.Idempotency);

/** A record taken for a request: in progress until `lock_expires_at`, kept until `expires_at`. */
export const toItem = (record: {
  id: string;
  request_hash: string;
  token: string;
  lock_expires_at: string;
  expires_at: string;
}): Item => ({
  ...key(record.id),
  item_type: type,
  status: Status.InProgress,
  request_hash: record.request_hash,
  token: record.token,
  lock_expires_at: record.lock_expires_at,
  expires_at: record.expires_at,
  ...retained.entry(record.expires_at, record.id),
  ttl: epochSeconds(record.expires_at),
});

const common = { request_hash: v.string(), token: v.string(), expires_at: v.string() };

/** In progress until `lock_expires_at`; once completed, the answer replayed: its status and JSON body. */
const schema = v.union([
  itemSchema(type, { ...common, status: v.literal(Status.InProgress), lock_expires_at: v.string() }),
  itemSchema(type, {
    ...common,
    status: v.literal(Status.Completed),
    response_status: v.number(),
    response_body: v.string(),
  }),
]);

export const fromItem = (item: Item) => readItem(schema, item);
