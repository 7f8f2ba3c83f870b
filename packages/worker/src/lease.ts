/**
 * The lease a chain holds on its operation while it works: renewed every third of its length, so
 * it lapses only when the chain died or froze, and the redispatch sweep takes the operation over
 * seconds later (docs/orchestration.md, Leases).
 */
import { Operations } from '@svc/core';
import type { WorkerDeps } from './deps.ts';

export interface ChainLease {
  readonly holder: string;
  /** True once a renewal found the lease taken over: the chain stops before it writes anything more. */
  lost(): boolean;
  /** Stops renewing (waiting for a renewal under way): before the write that gives the lease up. */
  stop(): Promise<void>;
}

export function holdLease(
  deps: Pick<WorkerDeps, 'compositions' | 'clock' | 'log'>,
  operation: Operations.Operation,
  holder: string,
): ChainLease {
  let lost = false;
  let renewing: Promise<void> | null = null;
  const renew = async () => {
    const until = Operations.leaseUntil(deps.clock.now());
    try {
      if (await deps.compositions.renewLease(operation, { holder, until })) return;
      lost = true;
      clearInterval(timer);
      deps.log({
        level: 'warn',
        msg: 'lease lost: another chain took the operation over; this one stops',
        operation_id: operation.id,
        composition_id: operation.composition_id,
      });
    } catch (error) {
      // The lease may lapse if this goes on; the sweep then takes over and this chain stops.
      deps.log({
        level: 'warn',
        msg: 'lease renewal failed',
        operation_id: operation.id,
        error: String(error),
      });
    }
  };
  const timer = setInterval(
    () => {
      renewing ??= renew().finally(() => {
        renewing = null;
      });
    },
    (Operations.leaseSeconds * 1000) / 3,
  );
  timer.unref();
  return {
    holder,
    lost: () => lost,
    async stop() {
      clearInterval(timer);
      await renewing;
    },
  };
}
