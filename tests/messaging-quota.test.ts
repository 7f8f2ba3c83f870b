/**
 * SNS allows 200 filter policies on one topic (its default quota), and every isolated subscription
 * has one: the 201st is refused, and a preview that needs it fails with a blocker saying so,
 * leaving no queue and no subscription. The local stack's SNS refuses it as AWS does
 * (packages/local/src/sns-quotas.ts). The topic is this file's own: other files share fauxqs.
 */
import { randomBytes } from 'node:crypto';
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  ListSubscriptionsByTopicCommand,
  SNSClient,
  SubscribeCommand,
} from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { Messaging } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest, image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

const topic = `quota-${randomBytes(4).toString('hex')}`;
let stack: Stack;
let http: HttpClient;
let topicArn: string;

useTestStack({ messageTopics: ['demo-events', 'quota-*'], forge: false }, async (started) => {
  ({ stack, http } = started);
  ({ TopicArn: topicArn = '' } = await stack.clients.sns.send(new CreateTopicCommand({ Name: topic })));
  // The demo baseline, its consumer subscribed to this file's topic.
  const manifest = demoManifest(stack.apiUrl);
  for (const project of manifest.projects) {
    for (const baseline of project.baselines) if (baseline.messaging) baseline.messaging.topics = [topic];
    for (const component of project.components) {
      for (const subscription of component.message_subscriptions) subscription.topic = topic;
    }
  }
  const applied = await http.post('/v1/catalog/apply', manifest);
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
});

afterAll(() => stack.clients.sns.send(new DeleteTopicCommand({ TopicArn: topicArn })));

/**
 * Fills the topic with filtered subscriptions, as other previews would have: through a client of
 * the test's own, since the stand-in's count asks fauxqs for every subscription at each Subscribe.
 */
async function fill(count: number): Promise<void> {
  const sns = new SNSClient({
    region: 'us-east-1',
    endpoint: stack.endpoints.sqs,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  for (let i = 0; i < count; i++) {
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: `arn:aws:sqs:us-east-1:000000000000:quota-filler-${i}`,
        Attributes: { FilterPolicy: JSON.stringify({ preview_route: [`c-filler-${i}`] }) },
      }),
    );
  }
  sns.destroy();
}

async function subscriptions(): Promise<string[]> {
  const endpoints: string[] = [];
  let token: string | undefined;
  do {
    const page = await stack.clients.sns.send(
      new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }),
    );
    endpoints.push(...(page.Subscriptions ?? []).map((s) => s.Endpoint ?? ''));
    token = page.NextToken;
  } while (token);
  return endpoints;
}

const isolated = (tag: string) =>
  createComposition(http, { 'service-d': { image: image('service-d', tag) } }, { message_isolation: true });

async function previewQueues(id: string): Promise<string[]> {
  const { QueueUrls = [] } = await stack.clients.sqs.send(
    new ListQueuesCommand({ QueueNamePrefix: `preview-${id}-` }),
  );
  return QueueUrls;
}

describe('the filter policies of one topic', () => {
  it('take the 200th isolated subscription, refuse the 201st with a blocker and no leftover, and take one again once a preview goes', async () => {
    await fill(Messaging.filterPoliciesPerTopic - 1);

    const last = await isolated('4.0.0');
    expect((await waitForPhase(http, last.id, ['ready', 'failed'])).phase).toBe('ready');
    expect(await subscriptions()).toHaveLength(Messaging.filterPoliciesPerTopic);

    const over = await isolated('4.0.1');
    const failed = await waitForPhase(http, over.id, ['failed', 'ready']);
    expect(failed.phase).toBe('failed');
    expect(failed.observed.blockers).toEqual([
      {
        code: 'messaging_quota_exceeded',
        message: expect.stringContaining(`topic "${topic}" already has the most filter policies SNS allows`),
        component: 'service-d',
      },
    ]);
    expect(await previewQueues(over.id)).toEqual([]);
    expect(await subscriptions()).toHaveLength(Messaging.filterPoliciesPerTopic);

    await http.delete(`/v1/compositions/${last.id}`);
    await waitForPhase(http, last.id, ['destroyed']);
    const next = await isolated('4.0.2');
    expect((await waitForPhase(http, next.id, ['ready', 'failed'])).phase).toBe('ready');
  });
});
