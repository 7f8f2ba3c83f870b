/**
 * Message isolation for a composition: a queue per overridden consumer and subscription, routed
 * messages only; queues of components no longer overridden go. Idempotent: creating is by derived
 * name and subscribing twice answers the same subscription.
 */
import { type Catalog, type Compositions, Messaging, Rollout } from '@svc/core';
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
      Rollout.rolloutBlocker(
        Rollout.RolloutBlockerCode.MessagingNotConfigured,
        `baseline "${baseline.name}" no longer has messaging set up`,
      ),
    );
    return isolation;
  }
  const { queuePrefix } = deps.settings;
  const keep: string[] = [];
  for (const component of Object.keys(composition.desired.images)) {
    const subscriptions = profiles[component]?.message_subscriptions ?? [];
    for (const [index, subscription] of subscriptions.entries()) {
      const name = Messaging.isolatedQueueName(queuePrefix, composition.id, component, index);
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
        isolation.blockers.push(messagingBlocker(error, subscription.topic, component));
      }
    }
  }
  const { leftovers } = await deps.messaging.removeIsolatedQueues({
    prefix: Messaging.isolatedQueuePrefix(queuePrefix, composition.id),
    topics: messaging.topics,
    keep,
  });
  if (leftovers.length > 0) {
    deps.log({
      level: 'warn',
      msg: 'isolated queues removed, some subscriptions left',
      composition_id: composition.id,
      leftovers,
    });
  }
  return isolation;
}

/** A missing topic, a refused permission or a full topic is a recorded blocker; anything else is retried. */
function messagingBlocker(error: unknown, topic: string, component: string): Compositions.Blocker {
  if (error instanceof Messaging.TopicMissingError) {
    return Rollout.rolloutBlocker(Rollout.RolloutBlockerCode.MessagingTopicMissing, error.message, component);
  }
  if (error instanceof Messaging.FilterPolicyQuotaError) {
    return Rollout.rolloutBlocker(
      Rollout.RolloutBlockerCode.MessagingQuotaExceeded,
      error.message,
      component,
    );
  }
  if (error instanceof Messaging.MessagingAccessDeniedError) {
    const left = error.left
      ? `; still on topic "${topic}": ${error.left}`
      : `; nothing of it is left on topic "${topic}"`;
    return Rollout.rolloutBlocker(
      Rollout.RolloutBlockerCode.MessagingAccessDenied,
      `${error.message}: the worker's IAM policy does not allow it (the stage grants its topics through messageTopics in stacks/<stage>.ts), so the messages of topic "${topic}" cannot be isolated${left}`,
      component,
    );
  }
  throw error;
}
