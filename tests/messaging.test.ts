import { ListSubscriptionsByTopicCommand, ListTopicsCommand, PublishCommand } from '@aws-sdk/client-sns';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { Cluster } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';
import { drainQueue } from './support/queues.ts';

let stack: Stack;
let http: HttpClient;
let topicArn: string;
useTestStack({}, async (started) => {
  ({ stack, http } = started);
  const { Topics = [] } = await stack.clients.sns.send(new ListTopicsCommand({}));
  topicArn = Topics.find((t) => t.TopicArn?.endsWith(':demo-events'))?.TopicArn ?? '';
});

const baselineQueue = async () =>
  (await stack.clients.sqs.send(new ListQueuesCommand({ QueueNamePrefix: 'staging-service-d-' })))
    .QueueUrls?.[0] ?? '';

async function publish(attributes: Record<string, string>, message: string) {
  await stack.clients.sns.send(
    new PublishCommand({
      TopicArn: topicArn,
      Message: message,
      MessageAttributes: Object.fromEntries(
        Object.entries(attributes).map(([k, v]) => [k, { DataType: 'String', StringValue: v }]),
      ),
    }),
  );
}

const drain = (queueUrl: string) => drainQueue(stack.clients.sqs, queueUrl, 1);

async function previewQueues(id: string): Promise<string[]> {
  const { QueueUrls = [] } = await stack.clients.sqs.send(
    new ListQueuesCommand({ QueueNamePrefix: `preview-${id}-` }),
  );
  return QueueUrls;
}

describe('message isolation', () => {
  it("gives an overridden consumer its own queue that receives only the composition's routed messages", async () => {
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '2.0.0') } },
      { message_isolation: true },
    );
    expect(created.message_subscriptions).toEqual([]);
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    expect(ready.message_subscriptions).toEqual([
      {
        component: 'service-d',
        topic: 'demo-events',
        queue_url: expect.stringContaining(`preview-${created.id}-service-d-0`),
        ready: true,
      },
    ]);
    const queueUrl = ready.message_subscriptions[0].queue_url;

    const fork = await stack.cluster.getDeployment('staging', `service-d-${created.id}`);
    expect(fork?.spec.template.spec.containers[0]?.env).toContainEqual({
      name: 'QUEUE_URL',
      value: queueUrl,
    });

    const baseline = await baselineQueue();
    await drain(baseline);
    await publish({ preview_route: created.id }, 'for the preview');
    await publish({ kind: 'order' }, 'for everyone else');
    await publish({ preview_route: 'c-someone-else' }, 'for another preview');
    expect(await drain(queueUrl)).toEqual(['for the preview']);
    expect(await drain(baseline)).toEqual(['for everyone else']);
  });

  it('makes no queue without isolation, and reports no subscriptions', async () => {
    const created = await createComposition(http, { 'service-d': { image: image('service-d', '2.0.1') } });
    const ready = await waitForPhase(http, created.id, ['ready']);
    expect(ready.message_subscriptions).toBeNull();
    expect(await previewQueues(created.id)).toEqual([]);
  });

  it('removes the queue when the consumer goes back to the baseline, and on destroy', async () => {
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '2.0.2') } },
      { message_isolation: true },
    );
    await waitForPhase(http, created.id, ['ready']);
    expect(await previewQueues(created.id)).toHaveLength(1);

    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '2.0.2') } },
    });
    const updated = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(updated.phase).toBe('ready');
    expect(updated.message_subscriptions).toEqual([]);
    expect(await previewQueues(created.id)).toEqual([]);

    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 2,
      overrides: { 'service-d': { image: image('service-d', '2.0.3') } },
    });
    await waitForPhase(http, created.id, ['ready']);
    expect(await previewQueues(created.id)).toHaveLength(1);
    await http.delete(`/v1/compositions/${created.id}`);
    await waitForPhase(http, created.id, ['destroyed']);
    expect(await previewQueues(created.id)).toEqual([]);
  });
});

/** Everything labelled with the composition in the cluster, pods included. */
async function clusterObjects(id: string): Promise<string[]> {
  const objects = await stack.cluster.list(
    'staging',
    Cluster.CompositionKinds,
    Cluster.compositionSelector(id),
  );
  return objects.map((o) => `${o.kind}/${o.metadata.name}`);
}

/** Subscriptions on the demo topic that deliver to one of the composition's queues. */
async function subscriptionsOf(id: string): Promise<string[]> {
  const { Subscriptions = [] } = await stack.clients.sns.send(
    new ListSubscriptionsByTopicCommand({ TopicArn: topicArn }),
  );
  return Subscriptions.map((s) => s.Endpoint ?? '').filter((endpoint) => endpoint.includes(`preview-${id}-`));
}

describe('a topic the stage does not grant the worker', () => {
  afterEach(() => {
    stack.grantWorkerTopics(['demo-events']);
    stack.policies.edit('worker', null);
  });

  it('fails the create at once with a named blocker, and the destroy leaves no pod and no queue', async () => {
    stack.grantWorkerTopics([]);
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '3.0.0') } },
      { message_isolation: true },
    );
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed.phase).toBe('failed');
    expect(failed.observed.blockers).toEqual([
      {
        code: 'messaging_access_denied',
        message: expect.stringMatching(
          /^the worker may not sns:Subscribe on arn:aws:sns:[^ ]+:demo-events: the worker's IAM policy does not allow it .*; nothing of it is left on topic "demo-events"$/,
        ),
        component: 'service-d',
      },
    ]);
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    // Refused once, not retried until the queue gave up.
    expect(events.filter((e: { type: string }) => e.type === 'step_started')).toHaveLength(1);
    expect(await previewQueues(created.id)).toEqual([]);

    expect((await http.delete(`/v1/compositions/${created.id}`)).status).toBe(202);
    expect((await waitForPhase(http, created.id, ['destroyed'])).phase).toBe('destroyed');
    expect(await clusterObjects(created.id)).toEqual([]);
    expect(await previewQueues(created.id)).toEqual([]);
  });

  it('lets a destroy take the forks and the queue when the grant went after the rollout, recording the subscription it could not remove', async () => {
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '3.0.1') } },
      { message_isolation: true },
    );
    expect((await waitForPhase(http, created.id, ['ready', 'failed'])).phase).toBe('ready');
    expect(await clusterObjects(created.id)).toContain(`Deployment/service-d-${created.id}`);
    expect(await subscriptionsOf(created.id)).toHaveLength(1);

    stack.grantWorkerTopics([]);
    expect((await http.delete(`/v1/compositions/${created.id}`)).status).toBe(202);
    const destroyed = await waitForPhase(http, created.id, ['destroyed'], 30_000);
    expect(destroyed.phase).toBe('destroyed');
    expect(await clusterObjects(created.id)).toEqual([]);
    expect(await previewQueues(created.id)).toEqual([]);
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'cleanup_incomplete',
        message: expect.stringContaining(
          'may be left: the worker may not sns:ListSubscriptionsByTopic on arn:aws:sns:',
        ),
        data: {
          step: 'release-messaging',
          blockers: [expect.objectContaining({ code: 'messaging_access_denied' })],
        },
      }),
    );
    // What the event says is left: the subscription, delivering to a queue that no longer exists.
    expect(await subscriptionsOf(created.id)).toHaveLength(1);
  });

  it('takes back a subscription the next call is refused after: the blocker names that call and says nothing is left', async () => {
    stack.policies.edit('worker', (granted) =>
      granted.map((s) => ({ ...s, actions: s.actions.filter((a) => a !== 'sns:GetSubscriptionAttributes') })),
    );
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '3.0.2') } },
      { message_isolation: true },
    );
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed.observed.blockers).toEqual([
      {
        code: 'messaging_access_denied',
        message: expect.stringMatching(
          /^the worker may not sns:GetSubscriptionAttributes on arn:aws:sns:[^ ]+:demo-events: .*; nothing of it is left on topic "demo-events"$/,
        ),
        component: 'service-d',
      },
    ]);
    expect(await subscriptionsOf(created.id)).toEqual([]);
    expect(await previewQueues(created.id)).toEqual([]);
  });

  it('under the grant on <topic>:* AWS never honoured, says which subscription is left; the corrected grant removes it on destroy though its queue is gone', async () => {
    // Unsubscribe and GetSubscriptionAttributes granted on the subscriptions' ARNs, as before issue 31.
    const bySubscription = ['sns:Unsubscribe', 'sns:GetSubscriptionAttributes'];
    stack.policies.edit('worker', (granted) =>
      granted.flatMap((s) =>
        s.actions.includes('sns:Unsubscribe')
          ? [
              { ...s, actions: s.actions.filter((a) => !bySubscription.includes(a)) },
              { actions: bySubscription, resources: s.resources.map((r) => `${r}:*`) },
            ]
          : [s],
      ),
    );
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '3.0.3') } },
      { message_isolation: true },
    );
    const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
    expect(failed.observed.blockers).toEqual([
      {
        code: 'messaging_access_denied',
        message: expect.stringMatching(
          /^the worker may not sns:GetSubscriptionAttributes on arn:aws:sns:[^ ]+:demo-events: .*; still on topic "demo-events": subscription arn:aws:sns:[^ ]+:demo-events:[0-9a-f-]+ \(the worker may not sns:Unsubscribe on arn:aws:sns:[^ ]+:demo-events\)$/,
        ),
        component: 'service-d',
      },
    ]);
    expect(await previewQueues(created.id)).toEqual([]);
    expect(await subscriptionsOf(created.id)).toHaveLength(1);

    stack.policies.edit('worker', null);
    expect((await http.delete(`/v1/compositions/${created.id}`)).status).toBe(202);
    expect((await waitForPhase(http, created.id, ['destroyed'])).phase).toBe('destroyed');
    expect(await subscriptionsOf(created.id)).toEqual([]);
  });
});
