/**
 * The forge's schedules. The dispatch sweep sends stored deliveries whose job was lost (the queue
 * was down when they came in). The reconciliation converges every policy's repository as the
 * forge sees it now (repairing missed webhooks) and asks the forge to redeliver what it failed to
 * deliver in the last three days.
 */
import { addSeconds } from '../clock.ts';
import { convergeRepository } from './deliveries.ts';
import { accountOf, type PreviewPolicy, type ReconciliationRun } from './model.ts';
import { allPolicies } from './policies.ts';
import type { ForgeDeps } from './ports.ts';
import { ForgeRateLimitedError } from './ports.ts';

/** GitHub redelivers (on request) what it attempted in the last three days. */
const redeliveryWindowSeconds = 3 * 24 * 3600;

export async function dispatchDeliveries(deps: ForgeDeps, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.forgeStore.dueDeliveries(now, limit);
  let sent = 0;
  for (const delivery of due) {
    try {
      await deps.jobs.send({ kind: 'forge-delivery', delivery_id: delivery.id });
    } catch (error) {
      // Still due: the next run tries again.
      deps.log({
        level: 'warn',
        msg: 'delivery not dispatched',
        delivery: delivery.id,
        error: String(error),
      });
      continue;
    }
    const next = addSeconds(now, deps.forgeSettings.dispatchGraceSeconds).toISOString();
    await deps.forgeStore.updateDelivery({ ...delivery, due_at: next });
    sent += 1;
  }
  return sent;
}

export async function reconcile(deps: ForgeDeps): Promise<ReconciliationRun> {
  const started_at = deps.clock.now().toISOString();
  const run = { policies: 0, drift_found: 0, drift_fixed: 0, redelivered: 0, error: null as string | null };
  if (deps.forge) {
    try {
      const policies = await allPolicies(deps);
      await refreshSuspensions(deps, policies);
      for (const policy of policies) {
        run.policies += 1;
        const drift = await convergeRepository(deps, policy);
        run.drift_found += drift.found;
        run.drift_fixed += drift.fixed;
      }
      run.redelivered = await redeliverFailed(deps);
    } catch (error) {
      run.error = error instanceof ForgeRateLimitedError ? error.message : String(error);
      deps.log({ level: 'warn', msg: 'reconciliation stopped', error: run.error });
    } finally {
      await recordBudgets(deps);
    }
  } else {
    run.error = 'no forge application is configured';
  }
  const result: ReconciliationRun = { started_at, finished_at: deps.clock.now().toISOString(), ...run };
  await deps.forgeStore.putReconciliation(result);
  return result;
}

/**
 * Which installations are suspended, as the forge says now: a missed suspend or unsuspend delivery
 * is repaired here, before the policies' repositories converge.
 */
async function refreshSuspensions(deps: ForgeDeps, policies: readonly PreviewPolicy[]): Promise<void> {
  const forge = deps.forge;
  if (!forge) return;
  const stored = new Map((await deps.forgeStore.suspensions()).map((s) => [s.account.toLowerCase(), s]));
  const listed = new Set<string>();
  const lifted = new Set<string>();
  for (let page: number | null = 1; page !== null; ) {
    const installations = await forge.listInstallations(page);
    for (const { id, account, suspended_at } of installations.items) {
      const key = account.toLowerCase();
      listed.add(key);
      if (suspended_at !== null && stored.get(key)?.suspended_at !== suspended_at)
        await deps.forgeStore.putSuspension({ account, installation: id, suspended_at });
      if (suspended_at === null && stored.has(key)) lifted.add(key);
    }
    page = installations.next_page;
  }
  for (const key of stored.keys()) if (!listed.has(key)) lifted.add(key);
  for (const key of lifted) await deps.forgeStore.deleteSuspension(stored.get(key)?.account ?? key);
  // A token issued before the suspension may be refused after it: the lifted accounts' are dropped.
  forge.forgetRepositories(
    policies.filter((p) => lifted.has(accountOf(p.repository).toLowerCase())).map((p) => p.repository),
  );
}

/** Deliveries the forge never got an answer for, which we never stored: ask for them again, once each. */
async function redeliverFailed(deps: ForgeDeps): Promise<number> {
  const forge = deps.forge;
  if (!forge) return 0;
  const since = addSeconds(deps.clock.now(), -redeliveryWindowSeconds);
  const attempts = await forge.deliveries(since);
  const byGuid = new Map<string, typeof attempts>();
  for (const attempt of attempts) byGuid.set(attempt.guid, [...(byGuid.get(attempt.guid) ?? []), attempt]);
  let redelivered = 0;
  for (const [guid, tries] of byGuid) {
    if (tries.some((t) => t.ok)) continue;
    if (await deps.forgeStore.getDelivery(guid)) continue;
    const newest = tries[0];
    if (!newest) continue;
    await forge.redeliver(newest.id);
    redelivered += 1;
  }
  return redelivered;
}

/** Keeps what the forge said of its rate limits where /v1/forge/status reads it. */
export async function recordBudgets(deps: Pick<ForgeDeps, 'forge' | 'forgeStore'>): Promise<void> {
  for (const budget of deps.forge?.budgets() ?? []) await deps.forgeStore.putBudget(budget);
}
