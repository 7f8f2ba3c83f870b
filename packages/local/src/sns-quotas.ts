/**
 * What AWS applies to SNS and fauxqs does not: a topic takes at most 200 filter policies (SNS's
 * default quota), and a Subscribe that would add one more is refused with
 * FilterPolicyLimitExceeded, as AWS refuses it. Every SNS client the local stack builds holds it;
 * the count is fauxqs's own (its subscriptions and their attributes), so stacks and test files
 * sharing one fauxqs count together, as one account does.
 */
import {
  FilterPolicyLimitExceededException,
  GetSubscriptionAttributesCommand,
  ListSubscriptionsByTopicCommand,
  type SNSClient,
  type SubscribeCommandInput,
} from '@aws-sdk/client-sns';
import { Messaging } from '@svc/core';

/**
 * `sns` refuses a Subscribe over the quota; `view` reads the topic's subscriptions (a client held to
 * no policy: the stand-in counts what is there, whoever may see it).
 */
export function enforceSnsQuotas(sns: SNSClient, view: SNSClient): void {
  sns.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'SubscribeCommand')
        await refuseOverQuota(view, args.input as SubscribeCommandInput);
      return next(args);
    },
    // After the IAM stand-in (packages/local-iam): AWS authorizes a call before it counts anything.
    { step: 'initialize', priority: 'low', name: 'localSnsQuotas', override: true },
  );
}

async function refuseOverQuota(view: SNSClient, input: SubscribeCommandInput): Promise<void> {
  const { TopicArn, Endpoint, Protocol } = input;
  if (!TopicArn || !input.Attributes?.FilterPolicy) return;
  let filtered = 0;
  let token: string | undefined;
  do {
    const page = await view.send(new ListSubscriptionsByTopicCommand({ TopicArn, NextToken: token }));
    const subscriptions = page.Subscriptions ?? [];
    // Subscribing an endpoint again answers its subscription: nothing is added.
    if (subscriptions.some((s) => s.Endpoint === Endpoint && s.Protocol === Protocol)) return;
    const policies = await Promise.all(
      subscriptions.map((s) => (s.SubscriptionArn ? hasFilterPolicy(view, s.SubscriptionArn) : false)),
    );
    filtered += policies.filter(Boolean).length;
    token = page.NextToken;
  } while (token);
  if (filtered >= Messaging.filterPoliciesPerTopic) {
    throw new FilterPolicyLimitExceededException({
      message: `Filter policy limit exceeded: topic ${TopicArn} has ${filtered} filter policies, the most one topic may have`,
      $metadata: { httpStatusCode: 403 },
    });
  }
}

async function hasFilterPolicy(view: SNSClient, subscriptionArn: string): Promise<boolean> {
  const { Attributes } = await view.send(
    new GetSubscriptionAttributesCommand({ SubscriptionArn: subscriptionArn }),
  );
  return Boolean(Attributes?.FilterPolicy);
}
