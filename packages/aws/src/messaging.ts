import {
  FilterPolicyLimitExceededException,
  GetSubscriptionAttributesCommand,
  ListSubscriptionsByTopicCommand,
  ListTopicsCommand,
  SNSClient,
  SubscribeCommand,
  UnsubscribeCommand,
} from '@aws-sdk/client-sns';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  QueueDoesNotExist,
  SetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Dependency, Messaging } from '@svc/core';
import { type AwsSettings, clientSettings } from './clients.ts';
import { dependencyFailures } from './failures.ts';

/**
 * The SNS client message isolation needs, built only where messaging is wired (the worker, the
 * local stack): the API never publishes or subscribes, so its bundle carries no SNS code.
 */
export function createSnsClient(settings: AwsSettings): SNSClient {
  const sns = new SNSClient(clientSettings(settings, settings.sqsEndpoint));
  sns.middlewareStack.use(dependencyFailures(Dependency.Sns));
  return sns;
}

/**
 * What SNS and SQS answer for want of a permission (SNS: AuthorizationError; SQS: AccessDenied), by
 * name: SNS answers its quotas with a 403 too (FilterPolicyLimitExceeded), which no grant fixes.
 */
const accessDeniedNames = new Set([
  'AuthorizationErrorException',
  'AuthorizationError',
  'AccessDenied',
  'AccessDeniedException',
]);

const isAccessDenied = (error: unknown) => error instanceof Error && accessDeniedNames.has(error.name);

/** Runs one call; a refusal for want of a permission becomes MessagingAccessDeniedError naming it. */
async function permitted<T>(action: string, resource: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isAccessDenied(error))
      throw new Messaging.MessagingAccessDeniedError(action, resource, { cause: error });
    throw error;
  }
}

const queueNameOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

interface Clients {
  sns: SNSClient;
  sqs: SQSClient;
}

type Port = Messaging.MessagingPort;
type TopicArnOf = (topic: string) => Promise<string>;

/** A topic's ARN, looked up by name once per messaging instance (an ARN is taken as it is). */
function topicArns(sns: SNSClient): TopicArnOf {
  const known = new Map<string, string>();
  return async (topic) => {
    const arn = topic.startsWith('arn:') ? topic : known.get(topic);
    if (arn) return arn;
    const found = await findTopic(sns, topic);
    known.set(topic, found);
    return found;
  };
}

async function ensureIsolatedQueue(
  clients: Clients,
  arnOf: TopicArnOf,
  input: Parameters<Port['ensureIsolatedQueue']>[0],
): ReturnType<Port['ensureIsolatedQueue']> {
  const arn = await arnOf(input.topic);
  const { QueueUrl } = await permitted('sqs:CreateQueue', input.name, () =>
    clients.sqs.send(new CreateQueueCommand({ QueueName: input.name })),
  );
  if (!QueueUrl) throw new Error(`CreateQueue ${input.name} returned no URL`);
  try {
    return { name: input.name, queue_url: QueueUrl, ready: await subscribe(clients, arn, QueueUrl, input) };
  } catch (error) {
    // A queue no topic may feed is of no use to anyone: it goes with the refusal.
    if (
      error instanceof Messaging.MessagingAccessDeniedError ||
      error instanceof Messaging.FilterPolicyQuotaError
    )
      await deleteQueue(clients.sqs, QueueUrl);
    throw error;
  }
}

/**
 * Unsubscribes from each topic the subscriptions delivering to a doomed queue; a topic that refuses
 * is a leftover, said in words, and a topic that no longer exists has nothing left to unsubscribe.
 */
async function unsubscribeFromTopics(
  sns: SNSClient,
  arnOf: TopicArnOf,
  topics: readonly string[],
  doomed: Doomed,
): Promise<Messaging.Leftover[]> {
  const leftovers: Messaging.Leftover[] = [];
  for (const topic of topics) {
    const arn = await arnOf(topic).catch((error: unknown) => {
      if (error instanceof Messaging.TopicMissingError) return null;
      throw error;
    });
    if (!arn) continue;
    try {
      await unsubscribeAll(sns, arn, doomed);
    } catch (error) {
      if (!(error instanceof Messaging.MessagingAccessDeniedError)) throw error;
      leftovers.push({
        resource: topic,
        message: `subscriptions of queues ${doomed.describe} to topic "${topic}" may be left: ${error.message}`,
      });
    }
  }
  return leftovers;
}

/** The queues a removal takes: by name, so a queue already deleted is still recognised by its subscription. */
interface Doomed {
  has(queueName: string): boolean;
  describe: string;
}

async function removeIsolatedQueues(
  clients: Clients,
  arnOf: TopicArnOf,
  { prefix, topics, keep = [] }: Parameters<Port['removeIsolatedQueues']>[0],
): ReturnType<Port['removeIsolatedQueues']> {
  const doomed: Doomed = {
    has: (name) => name.startsWith(prefix) && !keep.includes(name),
    describe: `${prefix}*${keep.length > 0 ? ` (but ${keep.join(', ')})` : ''}`,
  };
  const queues = (await listQueues(clients.sqs, prefix)).filter((url) => doomed.has(queueNameOf(url)));
  const leftovers = await unsubscribeFromTopics(clients.sns, arnOf, topics, doomed);
  for (const url of queues) await deleteQueue(clients.sqs, url);
  return { removed: queues.map(queueNameOf), leftovers };
}

/** Message isolation on SNS and SQS (fauxqs locally). */
export function snsSqsMessaging(clients: Clients): Port {
  const arnOf = topicArns(clients.sns);
  return {
    ensureIsolatedQueue: (input) => ensureIsolatedQueue(clients, arnOf, input),
    removeIsolatedQueues: (input) => removeIsolatedQueues(clients, arnOf, input),
    queuedMessages: (queueUrls) => queuedMessages(clients.sqs, queueUrls),
  };
}

async function queuedMessages(sqs: SQSClient, queueUrls: readonly string[]): Promise<number> {
  const counts = await Promise.all(
    queueUrls.map(async (QueueUrl) => {
      try {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return (
          Number(Attributes.ApproximateNumberOfMessages ?? 0) +
          Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
        );
      } catch (error) {
        if (error instanceof QueueDoesNotExist) return 0;
        throw error;
      }
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

async function findTopic(sns: SNSClient, topic: string): Promise<string> {
  let token: string | undefined;
  do {
    const next = token;
    const page = await permitted('sns:ListTopics', '*', () =>
      sns.send(new ListTopicsCommand({ NextToken: next })),
    );
    const found = page.Topics?.find((t) => t.TopicArn?.endsWith(`:${topic}`))?.TopicArn;
    if (found) return found;
    token = page.NextToken;
  } while (token);
  throw new Messaging.TopicMissingError(`SNS topic "${topic}" does not exist`);
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const { Attributes } = await permitted('sqs:GetQueueAttributes', queueNameOf(url), () =>
    sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] })),
  );
  if (!Attributes?.QueueArn) throw new Error(`queue ${url} has no ARN`);
  return Attributes.QueueArn;
}

/** Lets only the topic send to the queue, then subscribes it; true once the subscription delivers. */
async function subscribe(
  { sns, sqs }: Clients,
  topicArn: string,
  queueUrl: string,
  input: { name: string; topic: string; filterPolicy: Record<string, unknown> },
): Promise<boolean> {
  const endpoint = await queueArn(sqs, queueUrl);
  const policy = {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'sns.amazonaws.com' },
        Action: 'sqs:SendMessage',
        Resource: endpoint,
        Condition: { ArnEquals: { 'aws:SourceArn': topicArn } },
      },
    ],
  };
  await permitted('sqs:SetQueueAttributes', input.name, () =>
    sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { Policy: JSON.stringify(policy) } }),
    ),
  );
  // Subscribe is idempotent for the same topic, endpoint and attributes: it answers the same ARN.
  const { SubscriptionArn } = await permitted('sns:Subscribe', topicArn, () =>
    sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: endpoint,
        ReturnSubscriptionArn: true,
        Attributes: { FilterPolicy: JSON.stringify(input.filterPolicy), RawMessageDelivery: 'true' },
      }),
    ),
  ).catch((error: unknown) => {
    if (error instanceof FilterPolicyLimitExceededException)
      throw new Messaging.FilterPolicyQuotaError(input.topic, { cause: error });
    throw error;
  });
  if (!SubscriptionArn || SubscriptionArn === 'pending confirmation') return false;
  try {
    const { Attributes } = await permitted('sns:GetSubscriptionAttributes', topicArn, () =>
      sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn })),
    );
    return Attributes?.PendingConfirmation !== 'true';
  } catch (error) {
    if (!(error instanceof Messaging.MessagingAccessDeniedError)) throw error;
    throw await withdrawn(sns, topicArn, SubscriptionArn, error);
  }
}

/**
 * A subscription made just before a refusal is taken back, so the queue's removal leaves no
 * filtered subscription on the operator's topic; the refusal says what is left if that is refused too.
 */
async function withdrawn(
  sns: SNSClient,
  topicArn: string,
  subscriptionArn: string,
  refusal: Messaging.MessagingAccessDeniedError,
): Promise<Messaging.MessagingAccessDeniedError> {
  const left = await permitted('sns:Unsubscribe', topicArn, () =>
    sns.send(new UnsubscribeCommand({ SubscriptionArn: subscriptionArn })),
  ).then(
    () => undefined,
    (error: unknown) => {
      if (!(error instanceof Messaging.MessagingAccessDeniedError)) throw error;
      return `subscription ${subscriptionArn} (${error.message})`;
    },
  );
  return new Messaging.MessagingAccessDeniedError(refusal.action, refusal.resource, {
    cause: refusal.cause,
    ...(left ? { left } : {}),
  });
}

async function listQueues(sqs: SQSClient, prefix: string): Promise<string[]> {
  const urls: string[] = [];
  let token: string | undefined;
  do {
    const page = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix, NextToken: token }));
    urls.push(...(page.QueueUrls ?? []));
    token = page.NextToken;
  } while (token);
  return urls;
}

/** Unsubscribes from the topic every subscription delivering to a doomed queue, gone or not. */
async function unsubscribeAll(sns: SNSClient, topicArn: string, doomed: Doomed): Promise<void> {
  let token: string | undefined;
  do {
    const next = token;
    const page = await permitted('sns:ListSubscriptionsByTopic', topicArn, () =>
      sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: next })),
    );
    for (const { SubscriptionArn, Endpoint, Protocol } of page.Subscriptions ?? []) {
      // An SQS endpoint is the queue's ARN, whose last field is its name.
      if (
        !SubscriptionArn ||
        Protocol !== 'sqs' ||
        !Endpoint ||
        !doomed.has(Endpoint.split(':').at(-1) ?? '')
      )
        continue;
      await permitted('sns:Unsubscribe', topicArn, () =>
        sns.send(new UnsubscribeCommand({ SubscriptionArn })),
      );
    }
    token = page.NextToken;
  } while (token);
}

async function deleteQueue(sqs: SQSClient, url: string): Promise<void> {
  await permitted('sqs:DeleteQueue', queueNameOf(url), () =>
    sqs.send(new DeleteQueueCommand({ QueueUrl: url })),
  ).catch((error: unknown) => {
    if (!(error instanceof QueueDoesNotExist)) throw error;
  });
}
