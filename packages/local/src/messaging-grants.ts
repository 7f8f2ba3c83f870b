/**
 * The local stack's stand-in for the worker's IAM policy on SNS (infra/settings.ts grants
 * `sns:Subscribe`, `ListSubscriptionsByTopic`, `Unsubscribe` and `GetSubscriptionAttributes` on the
 * stage's `messageTopics` only). fauxqs checks no permissions, so without this a topic the stage
 * does not grant would work locally and fail on AWS: here it is refused with the error AWS answers.
 */
import { AuthorizationErrorException, type SNSClient } from '@aws-sdk/client-sns';
import { Messaging } from '@svc/core';

/** The calls the worker's policy scopes to the granted topics, and where each names its topic. */
const scoped: Record<string, (input: Record<string, unknown>) => unknown> = {
  SubscribeCommand: (input) => input.TopicArn,
  ListSubscriptionsByTopicCommand: (input) => input.TopicArn,
  // A subscription's ARN is its topic's ARN and one more field.
  UnsubscribeCommand: (input) => topicOfSubscription(input.SubscriptionArn),
  GetSubscriptionAttributesCommand: (input) => topicOfSubscription(input.SubscriptionArn),
};

function topicOfSubscription(arn: unknown): string {
  return typeof arn === 'string' ? arn.slice(0, arn.lastIndexOf(':')) : '';
}

/** Refuses the worker's SNS calls on topics `grants()` does not cover, as IAM would. */
export function enforceTopicGrants(sns: SNSClient, grants: () => readonly string[]): void {
  sns.middlewareStack.add(
    (next, context) => async (args) => {
      const topicOf = scoped[context.commandName ?? ''];
      const topic = topicOf ? String(topicOf(args.input as Record<string, unknown>)) : null;
      if (topic !== null && !Messaging.topicGranted(topic, grants())) {
        const action = `SNS:${(context.commandName ?? '').replace(/Command$/, '')}`;
        throw new AuthorizationErrorException({
          message: `User: arn:aws:sts::000000000000:assumed-role/WorkerRole/worker is not authorized to perform: ${action} on resource: ${topic} because no identity-based policy allows the ${action} action`,
          $metadata: { httpStatusCode: 403 },
        });
      }
      return next(args);
    },
    { step: 'initialize', name: 'localTopicGrants' },
  );
}
