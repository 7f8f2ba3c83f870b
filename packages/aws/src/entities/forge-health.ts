/**
 * The webhook's health counters, in the forge's small partition: updated in place (only forward
 * for the last delivery received), read for the forge status.
 */
import type { Forge } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'forge_health';

/** The forge's health items share one small partition. */
export const partition = 'FORGE';

export const key: Key = { pk: partition, sk: 'HEALTH' };

/** The counters before any delivery came in. */
export const none: Forge.WebhookHealth = {
  last_received_at: null,
  processing_failures: 0,
  last_failure_at: null,
};

const schema = v.pipe(
  itemSchema(type, {
    last_received_at: v.exactOptional(v.nullable(v.string())),
    processing_failures: v.exactOptional(v.number()),
    last_failure_at: v.exactOptional(v.nullable(v.string())),
  }),
  v.transform(
    (stored): Forge.WebhookHealth => ({
      last_received_at: stored.last_received_at ?? none.last_received_at,
      processing_failures: stored.processing_failures ?? none.processing_failures,
      last_failure_at: stored.last_failure_at ?? none.last_failure_at,
    }),
  ),
);

export const fromItem = (item: Item): Forge.WebhookHealth => readItem(schema, item);
