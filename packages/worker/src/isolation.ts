/**
 * Message isolation for a composition: a queue per overridden consumer and subscription, routed
 * messages only; queues of components no longer overridden go. Idempotent: creating is by derived
 * name and subscribing twice answers the same subscription.
 */
import { type Catalog, Compositions, Messaging } from '@svc/core';
import type { WorkerDeps } from './deps.ts';

export interface Isolation {
  /** Variables for each fork's container: where its isolated queues are. */
  env: Record<string, { name: string; value: string }[]>;
  subscriptions: Compositions.MessageSubscriptionState[];
  blockers: Compositions.Blocker[];
}

export async function isolate(
  deps: WorkerDeps,
  composition: Compositions.CompositionRecord,
  baseline: Catalog.Baseline,
  profiles: Record<string, Catalog.ComponentProfile>,
): Promise<Isolation> {
  const isolation: Isolation = { env: {}, subscriptions: [], blockers: [] };
  if (!composition.message_isolation) return isolation;
  const messaging = baseline.messaging;
  if (!messaging) {
    isolation.blockers.push(
      Compositions.rolloutBlocker(
        Compositions.RolloutBlockerCode.MessagingNotConfigured,
        `baseline "${baseline.name}" no longer has messaging set up`,
      ),
    );
    return isolation;
  }
  const keep: string[] = [];
  for (const component of Object.keys(composition.desired.images)) {
    const subscriptions = profiles[component]?.message_subscriptions ?? [];
    for (const [index, subscription] of subscriptions.entries()) {
      const name = Messaging.isolatedQueueName(composition.id, component, index);
      keep.push(name);
      try {
        const queue = await deps.messaging.ensureIsolatedQueue({
          name,
          topic: subscription.topic,
          filterPolicy: Messaging.routedFilterPolicy(messaging.routing_attribute, composition.id),
        });
        isolation.env[component] = [
          ...(isolation.env[component] ?? []),
          { name: subscription.queue_env, value: queue.queue_url },
        ];
        isolation.subscriptions.push({
          component,
          topic: subscription.topic,
          queue_url: queue.queue_url,
          ready: queue.ready,
        });
      } catch (error) {
        if (!(error instanceof Messaging.TopicMissingError)) throw error;
        isolation.blockers.push(
          Compositions.rolloutBlocker(
            Compositions.RolloutBlockerCode.MessagingTopicMissing,
            error.message,
            component,
          ),
        );
      }
    }
  }
  await deps.messaging.removeIsolatedQueues({
    prefix: Messaging.isolatedQueuePrefix(composition.id),
    topics: messaging.topics,
    keep,
  });
  return isolation;
}
