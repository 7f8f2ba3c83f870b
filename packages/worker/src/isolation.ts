/**
 * Message isolation for a composition: a queue per overridden consumer and subscription, routed
 * messages only; queues of components no longer overridden go. Idempotent: creating is by derived
 * name and subscribing twice answers the same subscription.
 */
import {
  type Baseline,
  type Blocker,
  type ComponentProfile,
  type CompositionRecord,
  isolatedQueueName,
  isolatedQueuePrefix,
  type MessageSubscriptionState,
  RolloutBlockerCode,
  rolloutBlocker,
  routedFilterPolicy,
  TopicMissingError,
} from '@svc/core';
import type { WorkerDeps } from './deps.ts';

export interface Isolation {
  /** Variables for each fork's container: where its isolated queues are. */
  env: Record<string, { name: string; value: string }[]>;
  subscriptions: MessageSubscriptionState[];
  blockers: Blocker[];
}

export async function isolate(
  deps: WorkerDeps,
  composition: CompositionRecord,
  baseline: Baseline,
  profiles: Record<string, ComponentProfile>,
): Promise<Isolation> {
  const isolation: Isolation = { env: {}, subscriptions: [], blockers: [] };
  if (!composition.message_isolation) return isolation;
  const messaging = baseline.messaging;
  if (!messaging) {
    isolation.blockers.push(
      rolloutBlocker(
        RolloutBlockerCode.MessagingNotConfigured,
        `baseline "${baseline.name}" no longer has messaging set up`,
      ),
    );
    return isolation;
  }
  const keep: string[] = [];
  for (const component of Object.keys(composition.desired.images)) {
    const subscriptions = profiles[component]?.message_subscriptions ?? [];
    for (const [index, subscription] of subscriptions.entries()) {
      const name = isolatedQueueName(composition.id, component, index);
      keep.push(name);
      try {
        const queue = await deps.messaging.ensureIsolatedQueue({
          name,
          topic: subscription.topic,
          filterPolicy: routedFilterPolicy(messaging.routing_attribute, composition.id),
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
        if (!(error instanceof TopicMissingError)) throw error;
        isolation.blockers.push(
          rolloutBlocker(RolloutBlockerCode.MessagingTopicMissing, error.message, component),
        );
      }
    }
  }
  await deps.messaging.removeIsolatedQueues({
    prefix: isolatedQueuePrefix(composition.id),
    topics: messaging.topics,
    keep,
  });
  return isolation;
}
