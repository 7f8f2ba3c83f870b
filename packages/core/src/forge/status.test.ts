import { describe, expect, it } from 'vitest';
import type { RateBudget } from './model.ts';
import type { ForgeDeps } from './ports.ts';
import { status } from './status.ts';

const budget = (observed_at: string, throttled_until: string | null): RateBudget => ({
  installation: '42',
  limit: 5000,
  remaining: 4000,
  reset_at: null,
  throttled_until,
  observed_at,
});

/** Only what status reads: the stored budgets, and what this process's forge client saw. */
function deps(stored: RateBudget[], seen: RateBudget[]): Pick<ForgeDeps, 'forge' | 'forgeStore' | 'clock'> {
  const forgeStore = {
    webhookHealth: async () => ({ last_received_at: null, last_processed_at: null }),
    unprocessed: async () => ({ count: 0, oldest: null }),
    lastReconciliation: async () => null,
    budgets: async () => stored,
  };
  const forge = {
    checkApp: async () => ({ app_id: '1', private_key: 'valid' }),
    deliveries: async () => [],
    budgets: () => seen,
  };
  return {
    forge: forge as unknown as ForgeDeps['forge'],
    forgeStore: forgeStore as unknown as ForgeDeps['forgeStore'],
    clock: { now: () => new Date('2026-11-28T00:00:00Z') },
  };
}

const configuration = { app_id: '1', webhook_secret: true, previous_webhook_secret: false };

describe('forge status', () => {
  it("reports, per installation, the newest budget of the worker's stored ones and this process's own", async () => {
    const throttled = budget('2026-11-28T00:00:02Z', '2026-11-28T00:01:00Z');
    const stored = budget('2026-11-28T00:00:01Z', null);
    expect((await status(deps([stored], [throttled]), configuration)).rate_limits).toEqual([throttled]);
    const later = budget('2026-11-28T00:00:03Z', null);
    expect((await status(deps([later], [throttled]), configuration)).rate_limits).toEqual([later]);
  });
});
