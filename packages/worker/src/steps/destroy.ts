import { Cluster, Messaging } from '@svc/core';
import { type Step, sleep } from './step.ts';

/**
 * Destroy: delete the anchor (owner-reference garbage collection removes the rest) and the isolated
 * queues. Safe to repeat: deletes of absent anchors and queues succeed.
 */
export const remove: Step = async (context) => {
  const { deps, composition } = context;
  if (composition.message_isolation) {
    const catalog = await deps.catalog.readVersion(
      composition.project,
      composition.desired.catalog_version_id,
    );
    await deps.messaging.removeIsolatedQueues({
      prefix: Messaging.isolatedQueuePrefix(composition.id),
      topics: catalog?.baselines[composition.baseline]?.spec.messaging?.topics ?? [],
    });
  }
  await deps.cluster.delete(
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
  const { deps, composition } = context;
  const deadline = Date.now() + deps.settings.watchBoundMs;
  const selector = Cluster.compositionSelector(composition.id);
  for (let round = 0; ; round++) {
    const remaining = await deps.cluster.list(composition.namespace, Cluster.CompositionKinds, selector);
    if (remaining.length === 0) return { kind: 'done' };
    if (round > 0) {
      await Promise.all(
        remaining
          .filter((o) => !o.metadata.deletionTimestamp && o.kind !== 'Pod' && o.kind !== 'ReplicaSet')
          .map((o) => deps.cluster.delete(Cluster.refOf(o))),
      );
    }
    if (Date.now() >= deadline) {
      return { kind: 'wait', delaySeconds: 1, observations: context.operation.observations };
    }
    await sleep(Math.min(25 * 2 ** round, 500));
  }
};
