// The app's webhook delivery attempts, read back newest first, and redelivery of one.

import type { Forge } from '@svc/core';
import { call } from './calls.ts';
import { appClient } from './clients.ts';
import type { GitHubContext } from './context.ts';

/** Attempts since `since`, newest first: paging stops at the first older one. */
export async function deliveries(context: GitHubContext, since: Date): Promise<Forge.ForgeDeliveryAttempt[]> {
  const attempts: Forge.ForgeDeliveryAttempt[] = [];
  for await (const response of appClient(context).paginate.iterator('GET /app/hook/deliveries', {
    per_page: 100,
  })) {
    let older = false;
    for (const delivery of response.data) {
      if (Date.parse(delivery.delivered_at) < since.getTime()) {
        older = true;
        break;
      }
      attempts.push({
        id: Number(delivery.id),
        guid: delivery.guid,
        delivered_at: delivery.delivered_at,
        ok: delivery.status_code >= 200 && delivery.status_code < 300,
      });
    }
    if (older) break;
  }
  return attempts;
}

export async function redeliver(context: GitHubContext, attemptId: number): Promise<void> {
  await call(context, 'app', () =>
    appClient(context).request('POST /app/hook/deliveries/{delivery_id}/attempts', {
      delivery_id: attemptId,
    }),
  );
}
