/**
 * A webhook delivery, put once per `X-GitHub-Delivery` (the dedupe) and kept 4 days, past GitHub's
 * 3-day redelivery window. It stays in the `due` index until it is finished. Deliveries stored
 * before installations and outcomes were recorded read as having none.
 */
import { addSeconds, Forge } from '@svc/core';
import * as v from 'valibot';
import {
  DueQueue,
  dueQueue,
  epochSeconds,
  everyIn,
  type Item,
  itemSchema,
  type Key,
  readItem,
  timeOrdered,
} from './entity.ts';

export const type = 'forge_delivery';

const retentionSeconds = 4 * 24 * 3600;

export const key = (id: string): Key => ({ pk: `DELIVERY#${id}`, sk: 'DELIVERY' });

/** Every delivery kept, newest first (what an operator lists). */
export const listed = everyIn('gsi1', 'DELIVERIES', {
  sort: (delivery: Pick<Forge.Delivery, 'received_at' | 'id'>) =>
    timeOrdered(delivery.received_at, delivery.id),
  newestFirst: true,
});

/** The delivery sweep's queue: a delivery waits in it until processed (or given up), by its `due_at`. */
export const unfinished = dueQueue(DueQueue.Forge);

/** Every repository a delivery concerns, in lower case: what a list filtered by repository matches. */
export const repositoryKeys = 'repository_keys';

const concerns = (delivery: Forge.Delivery) => [
  ...new Set(
    [...(delivery.repository ? [delivery.repository] : []), ...delivery.repositories].map((r) =>
      r.toLowerCase(),
    ),
  ),
];

export const toItem = (delivery: Forge.Delivery): Item => ({
  ...key(delivery.id),
  item_type: type,
  ...delivery,
  [repositoryKeys]: concerns(delivery),
  ...listed.entry(delivery),
  ...(delivery.due_at ? unfinished.entry(delivery.due_at, delivery.id) : {}),
  ttl: epochSeconds(addSeconds(new Date(delivery.received_at), retentionSeconds)),
});

const { account, outcome, ...recorded } = Forge.DeliveryView.entries;

const schema = v.pipe(
  itemSchema(type, {
    ...recorded,
    installation: v.exactOptional(v.nullable(v.number())),
    account: v.exactOptional(account),
    outcome: v.exactOptional(outcome),
  }),
  v.transform(
    (stored): Forge.Delivery => ({
      ...stored,
      installation: stored.installation ?? null,
      account: stored.account ?? null,
      outcome: stored.outcome ?? [],
    }),
  ),
);

export const fromItem = (item: Item): Forge.Delivery => readItem(schema, item);
