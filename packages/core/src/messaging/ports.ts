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

/**
 * AWS refused a messaging call for want of a permission: the worker's policy does not allow that
 * action on that resource. Retrying changes nothing, so it is a recorded blocker naming both, and
 * what the refusal left behind (a subscription made before it that could not be taken back).
 */
export class MessagingAccessDeniedError extends Error {
  override name = 'MessagingAccessDeniedError';
  readonly action: string;
  readonly resource: string;
  /** What is left on the operator's side because of the refusal, in words; null: nothing. */
  readonly left: string | null;
  constructor(action: string, resource: string, options?: { cause?: unknown; left?: string }) {
    super(`the worker may not ${action} on ${resource}`, options);
    this.action = action;
    this.resource = resource;
    this.left = options?.left ?? null;
  }
}

/** SNS's default quota: filter policies on one topic (AWS refuses the next Subscribe with one). */
export const filterPoliciesPerTopic = 200;

/**
 * The topic holds as many filter policies as SNS allows it: every isolated subscription has one,
 * so no more previews with message isolation on it until some go. A recorded blocker, not a retry.
 */
export class FilterPolicyQuotaError extends Error {
  override name = 'FilterPolicyQuotaError';
  readonly topic: string;
  constructor(topic: string, options?: { cause?: unknown }) {
    super(
      `topic "${topic}" already has the most filter policies SNS allows on one topic (${filterPoliciesPerTopic} by default, the operator's baseline subscriptions included): no more previews with message isolation on it until some are destroyed, or the quota is raised`,
      options,
    );
    this.topic = topic;
  }
}

interface IsolatedQueue {
  /** SQS queue name. */
  name: string;
  queue_url: string;
  /** True once the subscription is confirmed and delivering. */
  ready: boolean;
}

/** Something a removal could not take away, and why. */
export interface Leftover {
  /** The topic (or queue) concerned. */
  resource: string;
  message: string;
}

export interface MessagingPort {
  /**
   * Creates the queue (if absent) and subscribes it to the topic with the filter policy (if not
   * yet). A refusal (MessagingAccessDeniedError, FilterPolicyQuotaError) leaves no queue behind,
   * and no subscription unless taking it back was refused too (the error's `left` says so).
   */
  ensureIsolatedQueue(input: {
    name: string;
    topic: string;
    filterPolicy: Record<string, unknown>;
  }): Promise<IsolatedQueue>;
  /**
   * Unsubscribes from `topics` every subscription delivering to a queue whose name starts with
   * `prefix` (found by its endpoint, so a queue already gone leaves none behind), and deletes those
   * queues, except the ones in `keep`. Queues go even when a topic refuses the unsubscribing: what
   * it refused is the leftovers.
   */
  removeIsolatedQueues(input: {
    prefix: string;
    topics: readonly string[];
    keep?: readonly string[];
  }): Promise<{ removed: string[]; leftovers: Leftover[] }>;
  /**
   * Messages on these queues, waiting or received and not yet deleted (approximate, as SQS counts
   * them): what says a message woke a sleeping consumer. A queue already gone counts none.
   */
  queuedMessages(queueUrls: readonly string[]): Promise<number>;
}

/** SQS allows 80 characters; long names keep a hash of what was cut. */
export function isolatedQueueName(
  queuePrefix: string,
  compositionId: string,
  component: string,
  topicIndex: number,
): string {
  const name = `${isolatedQueuePrefix(queuePrefix, compositionId)}${component}-${topicIndex}`;
  if (name.length <= 80) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, 80 - hash.length - 1)}-${hash}`;
}

/**
 * Every isolated queue of a composition starts with this. `queuePrefix` scopes the queues to one
 * installation (on AWS `preview_<stage>_`, which the worker's grant names), `preview-` locally.
 */
export const isolatedQueuePrefix = (queuePrefix: string, compositionId: string) =>
  `${queuePrefix}${compositionId}-`;

/** Only messages carrying this composition's routing key. */
export function routedFilterPolicy(routingAttribute: string, compositionId: string): Record<string, unknown> {
  return { [routingAttribute]: [compositionId] };
}

/** A topic's name: the last field of an ARN, or the name itself. */
const topicName = (topic: string) => (topic.startsWith('arn:') ? (topic.split(':').at(-1) ?? '') : topic);

/**
 * Whether the stage's `messageTopics` (names, `*` for any run of characters, as the worker's IAM
 * policy reads them) cover a topic, given by name or ARN. The same rule decides the catalog and the
 * installation check; the worker's calls are held to the policy itself.
 */
export function topicGranted(topic: string, grants: readonly string[]): boolean {
  const name = topicName(topic);
  return grants.some((grant) => new RegExp(`^${grant.split('*').map(escapeRegExp).join('.*')}$`).test(name));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
