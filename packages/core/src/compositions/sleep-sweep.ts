/**
 * The sleep observer (docs/sleep.md): the cluster's autoscaler puts forks to sleep and wakes them;
 * this sweep reads their replicas back into each composition whose forks may sleep, and records
 * every change once (`slept`, `woke` with its cause) by a write conditional on the record it read.
 */

import type { ClusterPort } from '../cluster/ports.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import { compositionSelector } from '../cluster/render.ts';
import type { MessagingPort } from '../messaging/ports.ts';
import { guardedWrite } from '../operations/fence.ts';
import { eventFor } from './events.ts';
import { type CompositionRecord, EventType, Phase } from './model.ts';
import type { CompositionDeps } from './ports.ts';
import { type ForkScale, heldAwake, observeSleep, wakeCause } from './sleep.ts';
import { holdForks } from './wake.ts';

interface SleepSweepDeps extends Pick<CompositionDeps, 'compositions' | 'clock' | 'log'> {
  clusters: Pick<ClusterRegistry, 'names' | 'lookup'>;
  messaging: Pick<MessagingPort, 'queuedMessages'>;
}

const observer = { kind: 'system', subject: 'sleep-sweep' } as const;

/**
 * Only a ready composition with no operation under way is observed: a rollout owns its forks'
 * replicas until it ends, and the observer's write must not refuse the operation's own.
 */
const observable = (record: CompositionRecord) =>
  Boolean(record.sleep) && record.phase === Phase.Ready && record.active_operation === null;

/** Observes every composition whose forks may sleep, on every cluster; answers how many changed. */
export async function observeSleeping(deps: SleepSweepDeps, pageSize = 100): Promise<number> {
  let changed = 0;
  for (const name of deps.clusters.names) {
    const found = deps.clusters.lookup(name);
    if (!found.known) continue;
    const onCluster = { name, unnamedToo: deps.clusters.names.length === 1 };
    let after: string | null = null;
    do {
      const page = await deps.compositions.listOnCluster(onCluster, { limit: pageSize, after });
      for (const record of page.items.filter(observable)) {
        if (await observeOne(deps, found.cluster, record).catch((error) => failed(deps, record, error)))
          changed++;
      }
      after = page.next_cursor;
    } while (after !== null);
  }
  return changed;
}

function failed(deps: SleepSweepDeps, record: CompositionRecord, error: unknown): false {
  deps.log({
    level: 'warn',
    msg: 'sleep observation failed',
    composition_id: record.id,
    error: String(error),
  });
  return false;
}

async function forkScales(cluster: ClusterPort, record: CompositionRecord): Promise<ForkScale[]> {
  const deployments = await cluster.listDeployments(record.namespace, compositionSelector(record.id));
  return deployments.map((d) => ({ desired: d.spec.replicas ?? 1, ready: d.status?.readyReplicas ?? 0 }));
}

/** One composition: its forks read, the rule applied, the change written once (false: none, or another wrote first). */
async function observeOne(
  deps: SleepSweepDeps,
  cluster: ClusterPort,
  record: CompositionRecord,
): Promise<boolean> {
  const sleep = record.sleep;
  if (!sleep) return false;
  const now = deps.clock.now();
  const held = heldAwake(sleep, now);
  // A wake command's hold is applied again (its message may have been lost) or, once over, let go.
  if (held || sleep.awake_until) await holdForks(cluster, record, held ? (sleep.awake_until ?? null) : null);
  const forks = await forkScales(cluster, record);
  const observed = observeSleep(sleep, forks, now);
  const awakeUntil = held ? (sleep.awake_until ?? null) : null;
  if (observed.record === sleep && awakeUntil === (sleep.awake_until ?? null)) return false;
  const events = [];
  if (observed.event === 'slept') {
    events.push(
      eventFor(record, EventType.Slept, observer, null, now, 'Its forks scaled to zero.', {
        forks: forks.length,
      }),
    );
  } else if (observed.event === 'woke') {
    const queueUrls = (record.message_subscriptions ?? []).flatMap((s) => (s.queue_url ? [s.queue_url] : []));
    const queuedMessages = queueUrls.length > 0 ? await deps.messaging.queuedMessages(queueUrls) : 0;
    const cause = wakeCause({ commanded: held, queuedMessages });
    events.push(
      eventFor(record, EventType.Woke, observer, null, now, `Its forks woke on a ${cause}.`, { cause }),
    );
  }
  const { record: composition, expected_lock_version } = guardedWrite(record, {
    ...record,
    sleep: { ...observed.record, awake_until: awakeUntil },
  });
  return deps.compositions.replace({ composition, expected_lock_version, events });
}
