import { Compositions, Forge } from '@svc/core';
import type { WorkerDeps } from './deps.ts';
import type { ScheduleHandlers } from './scheduler.ts';

/** What each declared schedule does; the same on Lambda and in the local stack. */
export function sweeps(deps: Forge.ForgeDeps & Pick<WorkerDeps, 'clusters' | 'messaging'>): ScheduleHandlers {
  return {
    'expiry-sweep': () => Compositions.expireDue(deps),
    'idempotency-sweep': () => deps.idempotency.sweep(deps.clock.now(), 500),
    'redispatch-sweep': () => Compositions.redispatchOverdue(deps),
    'forge-dispatch-sweep': () => Forge.dispatchDeliveries(deps),
    'forge-reconcile': () => Forge.reconcile(deps),
    'sleep-sweep': () => Compositions.observeSleeping(deps),
  };
}
