/** The sweeps the worker runs on schedule. Each can run twice: every write in them is conditional. */
import { grantsOfRole, Role } from '../auth/identity.ts';
import { overdueAt } from '../operations/lease.ts';
import { destroy } from './commands.ts';
import { enqueueNextStep } from './dispatch.ts';
import type { CompositionDeps } from './ports.ts';

type SweepDeps = Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>;

/** The service itself, destroying what outlived its TTL in any project. */
const expirySweep = {
  actor: { kind: 'system', subject: 'expiry-sweep' },
  grants: grantsOfRole(Role.Admin),
} as const;

/**
 * The expiry sweep: starts the destroy (reason `expired`) of every composition past `expires_at`,
 * from the record its query returned (the destroy's write is conditional on its `lock_version`).
 */
export async function expireDue(deps: SweepDeps, limit = 100): Promise<number> {
  const due = await deps.compositions.expired(deps.clock.now(), limit);
  let started = 0;
  for (const record of due) {
    try {
      await destroy(deps, expirySweep, record.id, 'expired', record);
      started++;
    } catch (error) {
      deps.log({
        level: 'warn',
        msg: 'expiry destroy failed',
        composition_id: record.id,
        error: String(error),
      });
    }
  }
  return started;
}

/**
 * Takes over operations that are overdue — a lease that lapsed (its chain died), a message not
 * picked up in time (a crash between the write and the send, a lost message) — and re-enqueues
 * their next step. The takeover is conditional on the `due_at` read, so a chain that renewed or
 * wrote meanwhile keeps the operation; a chain whose lease lapsed but still runs has its next write
 * refused and stops, so two live chains never run one operation. Sending twice is harmless: whoever
 * picks the message up must take the lease first.
 */
export async function redispatchOverdue(deps: SweepDeps, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.compositions.dueOperations(now, limit);
  let sent = 0;
  for (const operation of due) {
    if (!(await deps.compositions.takeOver(operation, overdueAt(now)))) continue;
    if (await enqueueNextStep(deps, operation)) sent++;
  }
  return sent;
}

/**
 * When the next unfinished operation falls due (a lease lapses, a pickup allowance runs out), if
 * before `until`; null when none does. The local stack sweeps again then rather than at its next
 * minute: a chain a crash cut off is taken over seconds after its lease lapses.
 */
export async function nextDueBefore(
  deps: Pick<SweepDeps, 'compositions'>,
  until: Date,
): Promise<Date | null> {
  const [next] = await deps.compositions.dueOperations(until, 1);
  return next?.due_at ? new Date(next.due_at) : null;
}
