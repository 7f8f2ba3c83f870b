import { appFromEnvironment } from '@svc/api/runtime';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { startTestStack, useTestStack } from '@svc/local/testing';
import { handle } from 'hono/aws-lambda';
import { describe, expect, it } from 'vitest';

let stack: Stack;
useTestStack({}, (started) => {
  stack = started.stack;
});

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
    const { app } = appFromEnvironment(
      {
        AUTH_MODE: 'token',
        AWS_REGION: 'us-east-1',
        TABLE_NAME: stack.resources.tableName,
        JOB_QUEUE_URL: stack.resources.jobQueueUrl,
        PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
        EKS_CLUSTER_NAME: 'staging',
        CURSOR_KEY: 'lambda-test-cursor-key-of-32-characters',
        DYNAMODB_ENDPOINT: stack.endpoints.dynamodb,
        SQS_ENDPOINT: stack.endpoints.sqs,
      },
      { allowDev: false },
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
  });
});

describe('the worker on Lambda', () => {
  it('runs SQS batches with partial batch failures and schedule events', async () => {
    const { ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const { lambdaHandler, sweeps } = await import('@svc/worker');
    const quiet = await startTestStack({ worker: false });
    try {
      const handler = lambdaHandler(
        quiet.workerDeps,
        quiet.clients.sqs,
        quiet.resources.jobQueueUrl,
        sweeps(quiet.workerDeps),
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
      const result = await handler({
        Records: [
          record(Messages[0]?.Body ?? '', 'good', Messages[0]?.ReceiptHandle ?? ''),
          record('not json', 'poison', 'unknown-receipt'),
        ],
      } as never);
      expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: 'poison' }] });
      const status = (await fetch(`${quiet.apiUrl}/v1/compositions/${created.id}/status`).then((r) =>
        r.json(),
      )) as {
        phase: string;
      };
      expect(status.phase).toBe('ready');

      const swept = await handler({ schedule: 'redispatch-sweep' });
      expect(swept).toEqual({ swept: 0 });
    } finally {
      await quiet.stop();
    }
  });
});
