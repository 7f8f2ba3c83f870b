// The app's webhook deliveries (JWT): listed newest first, read one by one, redelivered.

import { Hono } from 'hono';
import { notFound } from '../errors.ts';
import { cursorPage } from '../paging.ts';
import type { ForgeStore } from '../store.ts';
import { type ApiDeps, type Ctx, type Env, requireApp } from './context.ts';
import { integer } from './input.ts';
import { paged } from './listing.ts';

function deliveryFor(store: ForgeStore, c: Ctx) {
  const delivery = store.state.deliveries.find((d) => d.id === integer(c.req.param('delivery_id')));
  if (!delivery) throw notFound();
  return delivery;
}

export function hookDeliveries({ store, render, webhooks }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/app/hook/deliveries', (c) => {
    requireApp(c);
    const newestFirst = [...store.state.deliveries].reverse();
    const page = cursorPage(newestFirst, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((d) => render.deliveryItem(d)),
    );
  });

  app.get('/app/hook/deliveries/:delivery_id', (c) => {
    requireApp(c);
    return c.json(render.delivery(deliveryFor(store, c)));
  });

  // GitHub answers 202 and redelivers in the background; here the redelivery has finished by the
  // time the 202 arrives, which keeps tests deterministic without changing what clients see.
  app.post('/app/hook/deliveries/:delivery_id/attempts', async (c) => {
    requireApp(c);
    await webhooks.redeliver(deliveryFor(store, c));
    return c.json({}, 202);
  });

  return app;
}
