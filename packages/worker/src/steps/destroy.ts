import { Cluster, Messaging, outwardCause, Rollout } from '@svc/core';
import { type Step, sleep } from './step.ts';

/**
 * Destroy: delete the anchor (owner-reference garbage collection removes the rest). Nothing comes
 * before it, so the forks stop whatever happens to the queues (`releaseMessaging`). Safe to repeat:
 * deleting an absent anchor succeeds.
 */
export const remove: Step = async (context) => {
  const { cluster, composition } = context;
  await cluster.delete(
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: composition.namespace,
      name: Cluster.anchorName(composition.id),
    },
    'Background',
  );
  return { kind: 'done' };
};

/**
 * Confirms nothing labelled with the composition remains, deleting any straggler (a late write of a
 * superseded step). Safe to repeat: it lists, and deletes if present.
 */
export const awaitDeletion: Step = async (context) => {
  const { deps, cluster, composition } = context;
  const deadline = Date.now() + deps.settings.watchBoundMs;
  const selector = Cluster.compositionSelector(composition.id);
  for (let round = 0; ; round++) {
    const remaining = await cluster.list(composition.namespace, Cluster.CompositionKinds, selector);
    if (remaining.length === 0) return { kind: 'done' };
    if (round > 0) {
      await Promise.all(
        remaining
          .filter((o) => !o.metadata.deletionTimestamp && o.kind !== 'Pod' && o.kind !== 'ReplicaSet')
          .map((o) => cluster.delete(Cluster.refOf(o))),
      );
    }
    if (Date.now() >= deadline) {
      return { kind: 'wait', delaySeconds: 1, observations: context.operation.observations };
    }
    await sleep(Math.min(25 * 2 ** round, 500));
  }
};

/**
 * The isolated queues and their subscriptions, once the forks are gone. A failure is retried by the
 * queue like any step's, but this one never fails the destroy: a topic that refuses the worker, or
 * the last attempt failing, ends the step with what is left recorded (a `cleanup_incomplete` event)
 * and the destroy goes on. Safe to repeat: it lists by prefix and deletes what it finds.
 */
export const releaseMessaging: Step = async (context) => {
  const { deps, composition } = context;
  if (!composition.message_isolation) return { kind: 'done' };
  try {
    const catalog = await deps.catalog.readVersion(
      composition.project,
      composition.desired.catalog_version_id,
    );
    const { leftovers } = await deps.messaging.removeIsolatedQueues({
      prefix: Messaging.isolatedQueuePrefix(deps.settings.queuePrefix, composition.id),
      topics: catalog?.baselines[composition.baseline]?.spec.messaging?.topics ?? [],
    });
    const blocker = (leftover: Messaging.Leftover) =>
      Rollout.rolloutBlocker(Rollout.RolloutBlockerCode.MessagingAccessDenied, leftover.message);
    return leftovers.length > 0 ? { kind: 'done', leftovers: leftovers.map(blocker) } : { kind: 'done' };
  } catch (error) {
    if (!context.lastAttempt) throw error;
    const message = `isolated queues of ${composition.id} may be left: the last attempt failed (${outwardCause(error)}); the worker log has the detail under operation ${context.operation.id}`;
    return {
      kind: 'done',
      leftovers: [Rollout.rolloutBlocker(Rollout.RolloutBlockerCode.MessagingCleanupFailed, message)],
    };
  }
};
