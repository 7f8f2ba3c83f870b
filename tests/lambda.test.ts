import { sign } from '@octokit/webhooks-methods';
import { appFromEnvironment } from '@svc/api/runtime';
import { Auth, type MetricsSink, ServiceMetric } from '@svc/core';
import type { Stack } from '@svc/local';
import { startTestStack, useTestStack } from '@svc/local/testing';
import { handle } from 'hono/aws-lambda';
import { describe, expect, it, vi } from 'vitest';

let stack: Stack;
useTestStack({}, (started) => {
  stack = started.stack;
});

function recordingMetrics() {
  const seen: [string, number][] = [];
  const sink: MetricsSink = {
    count: (metric) => seen.push([metric, 1]),
    milliseconds: (metric, value) => seen.push([metric, value]),
  };
  return { sink, seen };
}

function event(method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { host: 'api.example.com', ...headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'req',
      routeKey: '$default',
      stage: '$default',
      time: '25/Nov/2026:00:00:00 +0000',
      timeEpoch: 0,
    },
    isBase64Encoded: false,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

describe('the API on Lambda', () => {
  it('serves the same app through hono/aws-lambda against the same stores', async () => {
    const metrics = recordingMetrics();
    const { app } = appFromEnvironment(
      {
        AUTH_MODE: 'token',
        AUTH_SETTINGS: JSON.stringify({ public_origin: 'https://svc.acme.io' }),
        AWS_REGION: 'us-east-1',
        TABLE_NAME: stack.resources.tableName,
        JOB_QUEUE_URL: stack.resources.jobQueueUrl,
        DEAD_LETTER_QUEUE_URL: stack.resources.deadLetterQueueUrl,
        PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
        // As infra/settings.ts gives it: the catalog's cluster `local` is an EKS cluster here.
        CLUSTERS: JSON.stringify({ local: { eks_cluster: 'staging' } }),
        CURSOR_KEY: 'lambda-test-cursor-key-of-32-characters',
        DYNAMODB_ENDPOINT: stack.endpoints.dynamodb,
        SQS_ENDPOINT: stack.endpoints.sqs,
      },
      { allowDev: false, metrics: metrics.sink },
    );
    const lambda = handle(app);
    type Result = { statusCode: number; body: string; headers?: Record<string, string> };
    const handler = (e: ReturnType<typeof event>) => lambda(e as never) as Promise<Result>;
    const { token } = await Auth.mintToken(stack.stores.tokens, {
      name: 'lambda',
      grants: Auth.grantsOfRole(Auth.Role.Member),
      createdBy: 'test',
      now: new Date(),
      expiresAt: null,
    });
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const denied = await handler(event('GET', '/v1/projects', {}));
    expect(denied.statusCode).toBe(401);

    const created = await handler(
      event('POST', '/v1/compositions', auth, {
        project: 'demo',
        baseline: 'staging',
        name: 'on-lambda',
        overrides: {},
      }),
    );
    expect(created.statusCode).toBe(202);
    const composition = JSON.parse(created.body);
    expect(composition.endpoints.public.url).toBe(`https://${composition.id}.preview.localhost/`);
    expect(created.headers?.location).toBe(`/v1/compositions/${composition.id}`);
    expect(metrics.seen).toEqual([[ServiceMetric.CompositionsAccepted, 1]]);
  });
});

describe('the worker on Lambda', () => {
  it('runs SQS batches with partial batch failures and schedule events', async () => {
    const { ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const { lambdaHandler, sweeps } = await import('@svc/worker');
    const quiet = await startTestStack({ worker: false });
    const metrics = recordingMetrics();
    const lines: Record<string, unknown>[] = [];
    try {
      const deps = {
        ...quiet.workerDeps,
        log: (entry: Record<string, unknown>) => {
          lines.push(entry);
        },
      };
      const handler = lambdaHandler(
        deps,
        quiet.functionClients.worker.sqs,
        quiet.resources.jobQueueUrl,
        sweeps(deps),
        metrics.sink,
      );
      const created = await fetch(`${quiet.apiUrl}/v1/compositions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ project: 'demo', baseline: 'staging', name: 'lambda-worker', overrides: {} }),
      }).then((r) => r.json() as Promise<{ id: string }>);
      const { Messages = [] } = await quiet.clients.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: quiet.resources.jobQueueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      expect(Messages).toHaveLength(1);
      const record = (body: string, id: string, receipt: string) => ({
        messageId: id,
        receiptHandle: receipt,
        body,
        attributes: { ApproximateReceiveCount: '1' },
      });
      const unknownOperation = JSON.stringify({
        kind: 'step',
        composition_id: 'c-none',
        operation_id: 'op-none',
        step: 'apply',
      });
      const result = await handler({
        Records: [
          record(Messages[0]?.Body ?? '', 'good', Messages[0]?.ReceiptHandle ?? ''),
          record('not json', 'poison', 'unknown-receipt'),
          record(unknownOperation, 'stale', 'stale-receipt'),
        ],
      } as never);
      expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'poison' }] });
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'job failed', message_id: 'poison' }));
      // Every line a job writes names the job's composition and operation.
      const stale = lines.filter((line) => line.message_id === 'stale');
      expect(stale.length).toBeGreaterThan(0);
      for (const line of stale)
        expect(line).toMatchObject({ composition_id: 'c-none', operation_id: 'op-none' });
      const status = (await fetch(`${quiet.apiUrl}/v1/compositions/${created.id}/status`).then((r) =>
        r.json(),
      )) as {
        phase: string;
      };
      expect(status.phase).toBe('ready');

      const swept = await handler({ schedule: 'redispatch-sweep' });
      expect(swept).toEqual({ swept: 0 });
      const scheduledAt = new Date(Date.now() - 3_000).toISOString();
      await handler({ schedule: 'redispatch-sweep', scheduled_at: scheduledAt });
      const lag = metrics.seen.filter(([metric]) => metric === ServiceMetric.SweepLag);
      expect(lag).toHaveLength(1);
      expect(lag[0]?.[1]).toBeGreaterThanOrEqual(3_000);
    } finally {
      await quiet.stop();
    }
  });
});

describe('the webhook on Lambda', () => {
  it('stores a signed delivery (202) with only the webhook secrets, and refuses a bad signature (401)', async () => {
    const secret = 'lambda-test-webhook-secret';
    const environment = {
      AWS_REGION: 'us-east-1',
      TABLE_NAME: stack.resources.tableName,
      JOB_QUEUE_URL: stack.resources.jobQueueUrl,
      PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
      DYNAMODB_ENDPOINT: stack.endpoints.dynamodb,
      SQS_ENDPOINT: stack.endpoints.sqs,
      // As infra/settings.ts deploys it: no cursor key, no app id or private key, and the webhook
      // secrets from the function's SST links (SST_RESOURCE_* is how SST hands links over outside
      // Lambda's encrypted package), not from its environment.
      SVC_SECRETS: JSON.stringify({
        FORGE_WEBHOOK_SECRET: 'ForgeWebhookSecret',
        FORGE_WEBHOOK_SECRET_PREVIOUS: 'ForgeWebhookSecretPrevious',
      }),
      SST_RESOURCE_ForgeWebhookSecret: JSON.stringify({ value: secret }),
      SST_RESOURCE_ForgeWebhookSecretPrevious: JSON.stringify({ value: '' }),
      FORGE_WEBHOOK_SECRET: undefined,
      CURSOR_KEY: undefined,
      FORGE_APP_ID: '',
      FORGE_PRIVATE_KEY: '',
    };
    for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
    try {
      const { handler } = await import('../packages/api/src/entries/webhook-lambda.ts');
      const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const delivery = async (guid: string, signature: string) =>
        (await handler(
          {
            ...event('POST', '/webhooks/forge', {
              'content-type': 'application/json',
              'x-github-event': 'ping',
              'x-github-delivery': guid,
              'x-hub-signature-256': signature,
            }),
            body,
          } as never,
          {} as never,
        )) as { statusCode: number };
      const signed = await delivery('lambda-delivery-1', await sign(secret, body));
      expect(signed.statusCode).toBe(202);
      expect(await stack.stores.forgeStore.getDelivery('lambda-delivery-1')).not.toBeNull();
      const forged = await delivery('lambda-delivery-2', await sign('another-secret-entirely', body));
      expect(forged.statusCode).toBe(401);
      expect(await stack.stores.forgeStore.getDelivery('lambda-delivery-2')).toBeNull();
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
