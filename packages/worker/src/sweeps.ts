import { Compositions } from '@svc/core';
import type { ScheduleHandlers } from './scheduler.ts';

/** What each declared schedule does; the same on Lambda and in the local stack. */
export function sweeps(
  deps: Pick<Compositions.CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log' | 'idempotency'>,
): ScheduleHandlers {
  return {
    'expiry-sweep': () => Compositions.expireDue(deps),
    'idempotency-sweep': () => deps.idempotency.sweep(deps.clock.now(), 500),
    'redispatch-sweep': () => Compositions.redispatchOverdue(deps),
  };
}
