import {
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
import { type AwsSettings, emulatorCredentials } from './clients.ts';
import { dependencyFailures } from './failures.ts';

/**
 * The SNS client message isolation needs, built only where messaging is wired (the worker, the
 * local stack): the API never publishes or subscribes, so its bundle carries no SNS code.
 */
export function createSnsClient(settings: AwsSettings): SNSClient {
  const sns = new SNSClient({
    region: settings.region,
    maxAttempts: 3,
    ...(settings.sqsEndpoint ? { endpoint: settings.sqsEndpoint, credentials: emulatorCredentials } : {}),
  });
  sns.middlewareStack.use(dependencyFailures(Dependency.Sns));
  return sns;
}

/** Message isolation on SNS and SQS (fauxqs locally). */
export function snsSqsMessaging(clients: { sns: SNSClient; sqs: SQSClient }): Messaging.MessagingPort {
  const { sns, sqs } = clients;
  const topicArns = new Map<string, string>();

  async function topicArn(topic: string): Promise<string> {
    if (topic.startsWith('arn:')) return topic;
    const cached = topicArns.get(topic);
    if (cached) return cached;
    let token: string | undefined;
    do {
      const page = await sns.send(new ListTopicsCommand({ NextToken: token }));
      const found = page.Topics?.find((t) => t.TopicArn?.endsWith(`:${topic}`))?.TopicArn;
      if (found) {
        topicArns.set(topic, found);
        return found;
      }
      token = page.NextToken;
    } while (token);
    throw new Messaging.TopicMissingError(`SNS topic "${topic}" does not exist`);
  }

  async function queueArn(url: string): Promise<string> {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
    );
    if (!Attributes?.QueueArn) throw new Error(`queue ${url} has no ARN`);
    return Attributes.QueueArn;
  }

  return {
    async ensureIsolatedQueue({ name, topic, filterPolicy }) {
      const arn = await topicArn(topic);
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
      if (!QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
      const endpoint = await queueArn(QueueUrl);
      // The topic may send to this queue, and nothing else may.
      const policy = {
        Version: '2012-10-17',
        Statement: [
          {
            Effect: 'Allow',
            Principal: { Service: 'sns.amazonaws.com' },
            Action: 'sqs:SendMessage',
            Resource: endpoint,
            Condition: { ArnEquals: { 'aws:SourceArn': arn } },
          },
        ],
      };
      await sqs.send(
        new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: JSON.stringify(policy) } }),
      );
      // Subscribe is idempotent for the same topic, endpoint and attributes: it answers the same ARN.
      const { SubscriptionArn } = await sns.send(
        new SubscribeCommand({
          TopicArn: arn,
          Protocol: 'sqs',
          Endpoint: endpoint,
          ReturnSubscriptionArn: true,
          Attributes: { FilterPolicy: JSON.stringify(filterPolicy), RawMessageDelivery: 'true' },
        }),
      );
      let ready = false;
      if (SubscriptionArn && SubscriptionArn !== 'pending confirmation') {
        const { Attributes } = await sns.send(new GetSubscriptionAttributesCommand({ SubscriptionArn }));
        ready = Attributes?.PendingConfirmation !== 'true';
      }
      return { name, queue_url: QueueUrl, ready };
    },

    async removeIsolatedQueues({ prefix, topics, keep = [] }) {
      const urls: string[] = [];
      let token: string | undefined;
      do {
        const page = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix, NextToken: token }));
        urls.push(...(page.QueueUrls ?? []));
        token = page.NextToken;
      } while (token);
      const doomed = urls.filter((url) => !keep.includes(url.slice(url.lastIndexOf('/') + 1)));
      if (doomed.length === 0) return [];
      const endpoints = new Set(
        (await Promise.all(doomed.map((url) => queueArn(url).catch(() => null)))).filter(
          (a): a is string => a !== null,
        ),
      );
      for (const topic of topics) {
        const arn = await topicArn(topic).catch(() => null);
        if (!arn) continue;
        let next: string | undefined;
        do {
          const page = await sns.send(
            new ListSubscriptionsByTopicCommand({ TopicArn: arn, NextToken: next }),
          );
          for (const subscription of page.Subscriptions ?? []) {
            if (
              subscription.SubscriptionArn &&
              subscription.Endpoint &&
              endpoints.has(subscription.Endpoint)
            ) {
              await sns.send(new UnsubscribeCommand({ SubscriptionArn: subscription.SubscriptionArn }));
            }
          }
          next = page.NextToken;
        } while (next);
      }
      for (const url of doomed) {
        await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch((error: unknown) => {
          if (!(error instanceof QueueDoesNotExist)) throw error;
        });
      }
      return doomed.map((url) => url.slice(url.lastIndexOf('/') + 1));
    },
  };
}
