/** GET /v1/forge/status: is the app configured and working, are webhooks arriving and being processed, did reconciliation find drift, how much rate limit is left. Never a secret, only whether it is there. */
import { addSeconds } from '../clock.ts';
import type { RateBudget } from './model.ts';
import type { ForgeDeps } from './ports.ts';
import type { ForgeStatusView } from './schema.ts';

export interface ForgeConfiguration {
  app_id: string | null;
  webhook_secret: boolean;
  previous_webhook_secret: boolean;
}

export async function status(
  deps: Pick<ForgeDeps, 'forge' | 'forgeStore' | 'clock'>,
  configuration: ForgeConfiguration,
): Promise<ForgeStatusView> {
  const since = addSeconds(deps.clock.now(), -24 * 3600);
  const [check, health, unprocessed, reconciliation, budgets, forgeFailures] = await Promise.all([
    deps.forge?.checkApp().catch((error: unknown) => ({
      app_id: configuration.app_id,
      private_key: 'unchecked' as const,
      error: String(error),
    })),
    deps.forgeStore.webhookHealth(),
    deps.forgeStore.unprocessed(1000),
    deps.forgeStore.lastReconciliation(),
    deps.forgeStore.budgets(),
    deps.forge
      ?.deliveries(since)
      .then((attempts) => attempts.filter((a) => !a.ok).length)
      .catch(() => null),
  ]);
  return {
    app: {
      configured: deps.forge !== null,
      app_id: configuration.app_id,
      private_key: check?.private_key ?? 'missing',
      webhook_secret: configuration.webhook_secret ? 'present' : 'missing',
      previous_webhook_secret: configuration.previous_webhook_secret ? 'present' : 'absent',
      error: check?.error ?? null,
    },
    webhooks: {
      ...health,
      unprocessed: unprocessed.count,
      oldest_unprocessed_at: unprocessed.oldest,
      forge_failed_deliveries: forgeFailures ?? null,
    },
    reconciliation,
    rate_limits: newestBudgets(budgets, deps.forge?.budgets() ?? []),
  };
}

/**
 * Per installation, the newest of what the worker stored and what this process saw itself: the
 * API's own calls to the forge (this status's among them) meet rate limits the worker never did.
 */
function newestBudgets(stored: readonly RateBudget[], seen: readonly RateBudget[]): RateBudget[] {
  const newest = new Map<string, RateBudget>();
  for (const budget of [...stored, ...seen]) {
    const known = newest.get(budget.installation);
    if (!known || budget.observed_at > known.observed_at) newest.set(budget.installation, budget);
  }
  return [...newest.values()];
}
