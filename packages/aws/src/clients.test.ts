import { createServer, type Server, type Socket } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { ListTopicsCommand } from '@aws-sdk/client-sns';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { DependencyUnavailableError } from '@svc/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsTimeouts, createAwsClients } from './clients.ts';
import { createSnsClient } from './messaging.ts';

/** Accepts connections and never answers: a frozen service. */
let silent: Server;
const sockets = new Set<Socket>();
let endpoint = '';
beforeAll(async () => {
  silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
});

async function timed(call: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await call.then(
    () => null,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

describe('AWS clients against a service that never answers', () => {
  it('give up in under 10 s with DependencyUnavailableError, DynamoDB, SQS and SNS alike', async () => {
    const settings = { region: 'eu-west-1', dynamodbEndpoint: endpoint, sqsEndpoint: endpoint };
    const { dynamodb, sqs } = createAwsClients(settings);
    const sns = createSnsClient(settings);
    const answers = await Promise.all([
      timed(dynamodb.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'x' } } }))),
      timed(
        sqs.send(new GetQueueAttributesCommand({ QueueUrl: `${endpoint}/1/q`, AttributeNames: ['All'] })),
      ),
      timed(sns.send(new ListTopicsCommand({}))),
    ]);
    for (const { error, ms } of answers) {
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      // Each attempt waited out its deadline, and the attempts together stay under the webhook's 10 s.
      expect(ms).toBeGreaterThanOrEqual(awsTimeouts.requestMs);
      expect(ms).toBeLessThan(10_000);
    }
  }, 15_000);
});
