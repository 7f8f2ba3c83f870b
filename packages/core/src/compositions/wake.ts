/**
 * The wake command (docs/sleep.md): a sleeping composition's forks come up without a request and
 * stay up for its `after`, then sleep again as they would after a request. The API records the
 * wake and asks the worker; the worker (and, should that message be lost, the sleep sweep) holds
 * the forks up through their ScaledObjects, KEDA's own minimum, since only the worker writes to
 * the cluster and it cannot reach the interceptor that a request would wake them through.
 */
import type { Identity } from '../auth/identity.ts';
import { refOf } from '../cluster/objects.ts';
import type { ClusterPort } from '../cluster/ports.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import { compositionSelector } from '../cluster/render.ts';
import { holdAwakePatch, holdsAwake, scaledObjectKind } from '../cluster/sleep.ts';
import { ErrorCode, ProblemError } from '../errors.ts';
import { guardedWrite } from '../operations/fence.ts';
import { eventFor } from './events.ts';
import { type CompositionRecord, EventType, isExpired, Phase } from './model.ts';
import type { Accepted, CompositionDeps } from './ports.ts';
import { requireComposition } from './reads.ts';
import { compositionView } from './schema.ts';
import { commandWake, heldAwake, WakeCause } from './sleep.ts';

const maxConflictRetries = 5;

/**
 * POST /v1/compositions/{id}/wake: a sleeping composition is waking (202, its `woke` event
 * recorded with the state in one conditional write); an awake or waking one is left as it is (200).
 */
export async function wake(
  deps: Pick<CompositionDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  identity: Identity,
  id: string,
): Promise<Accepted> {
  for (let attempt = 0; attempt < maxConflictRetries; attempt++) {
    const record = await requireComposition(deps, identity, id, 'composition:write');
    const now = deps.clock.now();
    const sleep = refuseWake(record, now);
    const waking = commandWake(sleep, now);
    if (!waking) return { status: 200, body: compositionView(record, now), replayed: false };
    const actor = { kind: 'user', subject: identity.subject } as const;
    const woke = eventFor(record, EventType.Woke, actor, null, now, 'Its forks were woken by a command.', {
      cause: WakeCause.Command,
    });
    const { record: composition, expected_lock_version } = guardedWrite(record, { ...record, sleep: waking });
    if (await deps.compositions.replace({ composition, expected_lock_version, events: [woke] })) {
      await deps.jobs.send({ kind: 'wake', composition_id: id }).catch((error: unknown) =>
        deps.log({
          level: 'warn',
          msg: 'wake enqueue failed; the sleep sweep holds the forks up on its next run',
          composition_id: id,
          error: String(error),
        }),
      );
      return { status: 202, body: compositionView(composition, now), replayed: false };
    }
  }
  throw new ProblemError(
    ErrorCode.ConcurrentChange,
    'The composition kept changing; read it again and retry.',
  );
}

function refuseWake(record: CompositionRecord, now: Date): NonNullable<CompositionRecord['sleep']> {
  if (record.phase === Phase.Destroying || record.phase === Phase.Destroyed) {
    throw new ProblemError(ErrorCode.CompositionNotUpdatable, `The composition is ${record.phase}.`);
  }
  if (isExpired(record, now)) {
    throw new ProblemError(ErrorCode.CompositionExpired, `The composition expired at ${record.expires_at}.`);
  }
  if (!record.sleep) {
    throw new ProblemError(
      ErrorCode.SleepNotEnabled,
      `Composition ${record.id} never sleeps: its baseline ${record.baseline} does not enable sleep, or it overrides nothing.`,
    );
  }
  if (record.active_operation) {
    throw new ProblemError(
      ErrorCode.OperationInProgress,
      `A ${record.latest_operation.kind} of this composition is in progress; its forks are up until it ends.`,
    );
  }
  return record.sleep;
}

/**
 * Sets every fork's ScaledObject as `until` says: held up to then, or (null) let go. Repeatable: a
 * merge patch of the same values, skipped where the object already reads so.
 */
export async function holdForks(
  cluster: Pick<ClusterPort, 'list' | 'mergePatch'>,
  record: Pick<CompositionRecord, 'id' | 'namespace'>,
  until: string | null,
): Promise<void> {
  const objects = await cluster.list(record.namespace, [scaledObjectKind], compositionSelector(record.id));
  await Promise.all(
    objects
      .filter((object) => !holdsAwake(object, until))
      .map((object) => cluster.mergePatch(refOf(object), holdAwakePatch(until))),
  );
}

/** The worker's side of a wake command: the forks held up while the record says so, else nothing. */
export async function wakeForks(
  deps: Pick<CompositionDeps, 'compositions' | 'clock' | 'log'> & {
    clusters: Pick<ClusterRegistry, 'lookup'>;
  },
  id: string,
): Promise<void> {
  const record = await deps.compositions.get(id);
  const sleep = record?.sleep;
  if (!record || !sleep || !heldAwake(sleep, deps.clock.now())) return;
  const found = deps.clusters.lookup(record.cluster);
  if (!found.known) {
    deps.log({
      level: 'warn',
      msg: 'wake for a composition on an unknown cluster; dropped',
      composition_id: id,
    });
    return;
  }
  await holdForks(found.cluster, record, sleep.awake_until ?? null);
}
