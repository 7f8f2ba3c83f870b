/**
 * An operation of a composition, in the composition's partition. While pending or running it waits
 * in the `due` index for the redispatch sweep; once finished it is kept 30 days.
 */
import { Operations } from '@svc/core';
import * as v from 'valibot';
import { owner, partitionOf, retentionSeconds } from './composition.ts';
import {
  DueQueue,
  dueQueue,
  expiresAfter,
  type Item,
  itemSchema,
  type Key,
  readItem,
  recordEntries,
} from './entity.ts';

export const type = 'operation';

export const key = (compositionId: string, operationId: string): Key => ({
  pk: partitionOf(compositionId),
  sk: `OP#${operationId}`,
});

/** The redispatch sweep's queue: an unfinished operation waits in it until its `due_at`. */
export const due = dueQueue(DueQueue.Operations);

/** The `ttl` of an operation finished at `updatedAt`. */
export const finishedTtl = (updatedAt: string) => expiresAfter(updatedAt, retentionSeconds);

export function toItem(operation: Operations.Operation): Item {
  const unfinished = Operations.isUnfinished(operation);
  return {
    ...key(operation.composition_id, operation.id),
    item_type: type,
    ...operation,
    ...(unfinished && operation.due_at ? due.entry(operation.due_at, operation.id) : {}),
    ...(unfinished ? {} : finishedTtl(operation.updated_at)),
  };
}

const schema = itemSchema(
  type,
  recordEntries<Operations.Operation>()({
    id: v.string(),
    composition_id: v.string(),
    kind: v.enum(Operations.OperationKind),
    status: v.enum(Operations.OperationStatus),
    generation: v.number(),
    epoch: v.number(),
    steps: v.array(v.enum(Operations.StepName)),
    next_step: v.number(),
    due_at: v.nullable(v.string()),
    /** Absent on operations written before chains held leases. */
    lease_holder: v.exactOptional(v.nullable(v.string())),
    created_at: v.string(),
    updated_at: v.string(),
    error: v.nullable(v.object({ code: v.string(), message: v.string() })),
    requested_by: owner,
    observations: v.object({
      bad_since: v.record(v.string(), v.object({ reason: v.string(), since: v.string() })),
      ready: v.nullable(v.number()),
      cluster_unavailable: v.exactOptional(
        v.object({ cluster: v.string(), cause: v.string(), since: v.string() }),
      ),
    }),
    lock_version: v.number(),
  }),
);

export const fromItem = (item: Item): Operations.Operation => readItem(schema, item);
