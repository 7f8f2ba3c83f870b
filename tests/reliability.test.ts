import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { Cluster, type Compositions, Operations } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, httpClient, startTestStack, testClock } from '@svc/local/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.stop();
  stack = undefined;
});

async function receive(queueUrl: string, s: Stack) {
  const { Messages } = await s.clients.sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      MessageSystemAttributeNames: ['ApproximateReceiveCount'],
    }),
  );
  return Messages ?? [];
}

async function forkObjects(s: Stack, id: string) {
  const objects = await s.cluster.list(
    'staging',
    [
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { apiVersion: 'apps/v1', kind: 'Deployment' },
      { apiVersion: 'v1', kind: 'Service' },
      { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' },
    ],
    Cluster.compositionSelector(id),
  );
  return objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
}

describe('at-least-once delivery', () => {
  it('reaches the same end state when every step message is handled twice at once', async () => {
    stack = await startTestStack({ worker: false, workerSettings: { chainBudgetMs: 0 } });
    const s = stack;
    const http: HttpClient = httpClient(s.apiUrl);
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    const handled: string[] = [];
    const deadline = Date.now() + 30_000;
    let phase = 'created';
    while (phase !== 'ready' && Date.now() < deadline) {
      for (const message of await receive(s.resources.jobQueueUrl, s)) {
        handled.push(JSON.parse(message.Body ?? '{}').step);
        await Promise.all([s.handle(message.Body ?? ''), s.handle(message.Body ?? '')]);
        await s.clients.sqs.send(
          new DeleteMessageCommand({
            QueueUrl: s.resources.jobQueueUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
      }
      phase = (await http.get(`/v1/compositions/${created.id}/status`)).body.phase;
    }
    expect(phase).toBe('ready');
    expect(handled).toEqual(expect.arrayContaining(['apply', 'await-rollout', 'verify', 'finish']));
    expect(await forkObjects(s, created.id)).toEqual([
      `ConfigMap/preview-${created.id}`,
      `Deployment/service-b-${created.id}`,
      `HTTPRoute/preview-${created.id}`,
      `HTTPRoute/preview-${created.id}-service-b`,
      `Service/service-b-${created.id}`,
    ]);
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    const finished = events
      .filter((e: { type: string }) => e.type === 'step_finished')
      .map((e: { data: { step: string } }) => e.data.step);
    expect(finished.sort()).toEqual(['apply', 'await-rollout', 'finish', 'verify']);
    expect(events.filter((e: { type: string }) => e.type === 'ready')).toHaveLength(1);
    const checks = (await http.get(`/v1/compositions/${created.id}/verification`)).body.items;
    expect(checks[0]).toMatchObject({ status: 'passed', freshness: 'fresh' });
  });
});

describe('a worker killed mid-step', () => {
  it('converges when it dies between the cluster write and the progress record', async () => {
    let crashes = 0;
    const crashAfterApply = (store: Compositions.CompositionStore): Compositions.CompositionStore => ({
      ...store,
      async commit(write) {
        const operation = write.operation?.record;
        if (
          crashes === 0 &&
          operation?.kind === 'create' &&
          operation.next_step === 1 &&
          !write.composition
        ) {
          crashes++;
          throw new Error('worker killed');
        }
        return store.commit(write);
      },
    });
    stack = await startTestStack({
      wrapWorkerStore: crashAfterApply,
      retryBaseSeconds: 0,
      workerSettings: { chainBudgetMs: 0 },
    });
    const http = httpClient(stack.apiUrl);
    const created = await createComposition(http, { 'service-c': { image: image('service-c', '2.0.0') } });
    const ready = await waitForPhase(http, created.id, ['ready', 'failed']);
    expect(crashes).toBe(1);
    expect(ready.phase).toBe('ready');
    expect((await forkObjects(stack, created.id)).filter((o) => o.startsWith('Deployment/'))).toEqual([
      `Deployment/service-c-${created.id}`,
    ]);
  });
});

describe('a flaky cluster', () => {
  it('brings 20 concurrent compositions to ready while 20% of Kubernetes API requests fail', async () => {
    stack = await startTestStack({ retryBaseSeconds: 0 });
    const s = stack;
    const http = httpClient(s.apiUrl);
    const fault = await fetch(`${s.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'fail', status: 503, percent: 20 }),
    });
    expect(fault.status).toBeLessThan(300);
    const components = ['service-a', 'service-b', 'service-c', 'service-d'];
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const component = components[i % components.length] as string;
        return createComposition(http, { [component]: { image: image(component, `2.0.${i}`) } });
      }),
    );
    const settled = await Promise.all(
      created.map((c) => waitForPhase(http, c.id, ['ready', 'failed'], 170_000)),
    );
    const hits = await (await fetch(`${s.clusterUrl}/_faults`)).json();
    expect(JSON.stringify(hits)).toMatch(/"hits":\s*[1-9]/);
    expect(settled.map((c) => c.phase)).toEqual(Array(20).fill('ready'));
    // Convergence, not speed, is the point: alone this takes ~11 s, much longer under a full parallel run.
  }, 180_000);
});

describe('poison messages', () => {
  it('moves an unreadable message to the dead-letter queue', async () => {
    stack = await startTestStack({ retryBaseSeconds: 0, seed: false });
    const { SendMessageCommand } = await import('@aws-sdk/client-sqs');
    await stack.clients.sqs.send(
      new SendMessageCommand({ QueueUrl: stack.resources.jobQueueUrl, MessageBody: 'not json' }),
    );
    const s = stack;
    let dead: string[] = [];
    const deadline = Date.now() + 20_000;
    while (dead.length === 0 && Date.now() < deadline) {
      dead = (await receive(s.resources.deadLetterQueueUrl, s)).map((m) => m.Body ?? '');
    }
    expect(dead).toEqual(['not json']);
  });

  /** A composition whose `apply` keeps meeting `fault` (a local-cluster fault) until it fails. */
  async function failingApply(fault: Record<string, unknown>) {
    stack = await startTestStack({ retryBaseSeconds: 0 });
    const s = stack;
    const http = httpClient(s.apiUrl);
    await fetch(`${s.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fault),
    });
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready'], 60_000);
    return { s, created, failed };
  }

  it('fails the operation with a recorded blocker and dead-letters its message when a step keeps failing', async () => {
    const { s, created, failed } = await failingApply({
      type: 'fail',
      status: 500,
      percent: 100,
      match: { resource: 'configmaps' },
    });
    expect(failed.phase).toBe('failed');
    expect(failed.observed.blockers[0]).toMatchObject({
      code: 'step_failed',
      message: expect.stringMatching(/apply failed 5 times/),
    });
    let dead: { step?: string; operation_id?: string }[] = [];
    const deadline = Date.now() + 20_000;
    while (dead.length === 0 && Date.now() < deadline) {
      dead = (await receive(s.resources.deadLetterQueueUrl, s)).map((m) => JSON.parse(m.Body ?? '{}'));
    }
    expect(dead).toEqual([
      expect.objectContaining({ operation_id: created.latest_operation.id, step: 'apply' }),
    ]);
  });

  it("names a refusing cluster's answer in a short cause, the detail left to the worker log", async () => {
    const { created, failed } = await failingApply({ type: 'deny', match: { resource: 'configmaps' } });
    expect(failed.observed.blockers).toEqual([
      {
        code: 'step_failed',
        message: `step apply failed 5 times; last error: access denied (HTTP 403) (the worker log has the detail under operation ${created.latest_operation.id})`,
        component: null,
      },
    ]);
  });
});

describe('the redispatch sweep and chains in flight', () => {
  async function firstJob(s: Stack, operationId: string): Promise<string> {
    for (const message of await receive(s.resources.jobQueueUrl, s)) {
      await s.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: s.resources.jobQueueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
      if (JSON.parse(message.Body ?? '{}').operation_id === operationId) return message.Body ?? '';
    }
    throw new Error(`no job for ${operationId}`);
  }

  /** A stack whose worker store runs the redispatch sweep, `advance` seconds later, just before a chain completes. */
  async function sweepBeforeCompletion(advance: number) {
    const clock = testClock();
    const state = { swept: 0 };
    const wrap = (store: Compositions.CompositionStore): Compositions.CompositionStore => ({
      ...store,
      async commit(write) {
        if (state.swept === 0 && write.composition?.record.phase === 'ready') {
          clock.advance(advance);
          await (stack as Stack).scheduler.run('redispatch-sweep');
          state.swept = 1;
        }
        return store.commit(write);
      },
    });
    stack = await startTestStack({ clock, worker: false, wrapWorkerStore: wrap });
    const s = stack;
    const http = httpClient(s.apiUrl);
    const created = await createComposition(http, {});
    await s.handle(await firstJob(s, created.latest_operation.id));
    expect(state.swept).toBe(1);
    return { s, http, created };
  }

  async function queued(s: Stack, operationId: string): Promise<string[]> {
    const bodies: string[] = [];
    for (const message of await receive(s.resources.jobQueueUrl, s)) {
      await s.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: s.resources.jobQueueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
      if (JSON.parse(message.Body ?? '{}').operation_id === operationId) bodies.push(message.Body ?? '');
    }
    return bodies;
  }

  it('leaves an operation alone while the chain running it holds its lease', async () => {
    const { s, http, created } = await sweepBeforeCompletion(Operations.leaseSeconds - 2);
    const composition = (await http.get(`/v1/compositions/${created.id}`)).body;
    expect(composition).toMatchObject({ phase: 'ready', latest_operation: { status: 'succeeded' } });
    expect(s.workerCounts()).toEqual({});
    expect(await queued(s, created.latest_operation.id)).toEqual([]);
  });

  it('takes over a lapsed lease: the chain that let it lapse has its write refused, the re-sent step finishes the operation once', async () => {
    const { s, http, created } = await sweepBeforeCompletion(Operations.leaseSeconds + 1);
    expect(s.workerCounts()).toEqual({ lost_chain_writes: 1 });
    expect((await http.get(`/v1/compositions/${created.id}`)).body.phase).toBe('provisioning');
    const resent = await queued(s, created.latest_operation.id);
    // The chain ran every step without a write in between: the operation starts over from apply.
    expect(resent.map((body) => JSON.parse(body).step)).toEqual(['apply']);
    await s.handle(resent[0] ?? '');
    const composition = (await http.get(`/v1/compositions/${created.id}`)).body;
    expect(composition).toMatchObject({ phase: 'ready', latest_operation: { status: 'succeeded' } });
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    expect(events.filter((e: { type: string }) => e.type === 'ready')).toHaveLength(1);
  });

  it('drops a message whose operation another live chain holds', async () => {
    const logged: Record<string, unknown>[] = [];
    stack = await startTestStack({ worker: false, log: (entry) => logged.push(entry) });
    const s = stack;
    const http = httpClient(s.apiUrl);
    const created = await createComposition(http, {
      'service-b': { image: image('service-b', '2.0.0-slow') },
    });
    const job = await firstJob(s, created.latest_operation.id);
    // apply, then a first look at the slow fork: the operation is handed to the queue waiting.
    await s.handle(job);
    const [look] = await queued(s, created.latest_operation.id);
    const waiting = await s.stores.compositions.getOperation(created.id, created.latest_operation.id);
    if (!waiting || !look) throw new Error('no waiting operation');
    expect(waiting.lease_holder).toBeNull();
    const taken = await s.stores.compositions.takeLease(waiting, {
      holder: 'another-chain',
      until: Operations.leaseUntil(new Date()),
      now: new Date(),
    });
    expect(taken?.lease_holder).toBe('another-chain');
    await s.handle(look);
    expect(logged).toContainEqual(
      expect.objectContaining({ msg: 'operation held by another chain; message dropped' }),
    );
    const after = await s.stores.compositions.getOperation(created.id, created.latest_operation.id);
    expect(after).toEqual(taken);
  });

  it('logs and counts a chain write another writer got to first', async () => {
    const logged: Record<string, unknown>[] = [];
    let destroyed = false;
    const destroyBeforeCompletion = (
      store: Compositions.CompositionStore,
    ): Compositions.CompositionStore => ({
      ...store,
      async commit(write) {
        const id = write.composition?.record.id;
        if (!destroyed && id && write.composition?.record.phase === 'ready') {
          destroyed = true;
          await fetch(`${(stack as Stack).apiUrl}/v1/compositions/${id}`, { method: 'DELETE' });
        }
        return store.commit(write);
      },
    });
    stack = await startTestStack({
      worker: false,
      wrapWorkerStore: destroyBeforeCompletion,
      log: (entry) => logged.push(entry),
    });
    const s = stack;
    const http = httpClient(s.apiUrl);
    const created = await createComposition(http, {});
    await s.handle(await firstJob(s, created.latest_operation.id));
    expect(destroyed).toBe(true);
    expect(s.workerCounts()).toEqual({ lost_chain_writes: 1 });
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 'debug',
        msg: 'chain write lost to another writer',
        write: 'complete',
        step: 'finish',
        operation_id: created.latest_operation.id,
        now: { status: 'superseded', step: 'apply' },
      }),
    );
    expect((await http.get(`/v1/compositions/${created.id}`)).body.phase).toBe('destroying');
  });

  it('logs and counts a message naming an operation that does not exist', async () => {
    const logged: Record<string, unknown>[] = [];
    stack = await startTestStack({ worker: false, seed: false, log: (entry) => logged.push(entry) });
    const job = { kind: 'step', operation_id: 'op-nothere', composition_id: 'c-nothere', step: 'apply' };
    await stack.handle(JSON.stringify(job));
    expect(stack.workerCounts()).toEqual({ unknown_operation_messages: 1 });
    expect(logged).toContainEqual(
      expect.objectContaining({
        msg: 'job names an unknown operation; dropped',
        operation_id: 'op-nothere',
        composition_id: 'c-nothere',
      }),
    );
  });
});
