/**
 * Message isolation (SNS → SQS). An overridden consumer gets its own queue, subscribed to the
 * operator's topic with a filter on the routing key, so messages published for a composition
 * reach its fork and nothing else; the baseline's own subscription excludes routed messages
 * (operator setup). Names are derived from the composition, so every resource can be found
 * again without stored handles: creating is idempotent, removing is by prefix.
 */
import { createHash } from 'node:crypto';

/** The operator's topic does not exist (a recorded blocker, not a retry). */
export class TopicMissingError extends Error {
  override name = 'TopicMissingError';
}

interface IsolatedQueue {
  /** SQS queue name. */
  name: string;
  queue_url: string;
  /** True once the subscription is confirmed and delivering. */
  ready: boolean;
}

export interface MessagingPort {
  /** Creates the queue (if absent) and subscribes it to the topic with the filter policy (if not yet). */
  ensureIsolatedQueue(input: {
    name: string;
    topic: string;
    filterPolicy: Record<string, unknown>;
  }): Promise<IsolatedQueue>;
  /** Unsubscribes and deletes every queue whose name starts with `prefix`, except those in `keep`. */
  removeIsolatedQueues(input: {
    prefix: string;
    topics: readonly string[];
    keep?: readonly string[];
  }): Promise<string[]>;
}

/** SQS allows 80 characters; long names keep a hash of what was cut. */
export function isolatedQueueName(compositionId: string, component: string, topicIndex: number): string {
  const name = `preview-${compositionId}-${component}-${topicIndex}`;
  if (name.length <= 80) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 80 - hash.length - 1)}-${hash}`;
}

export const isolatedQueuePrefix = (compositionId: string) => `preview-${compositionId}-`;

/** Only messages carrying this composition's routing key. */
export function routedFilterPolicy(routingAttribute: string, compositionId: string): Record<string, unknown> {
  return { [routingAttribute]: [compositionId] };
}
