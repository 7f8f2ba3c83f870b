/**
 * `npm run bench:iam`: what holding a client to a policy costs. Per SDK call, a client with the
 * policy middleware against the same client without it, both answered in process by a request
 * handler that returns at once (no socket, so no network noise), in alternating rounds: the added
 * time is the middleware's, the decision cached after the first call. Then the simulator alone:
 * decisions a second when every request is new (nothing cached), and resolutions with a cached
 * decision.
 */
import { Readable } from 'node:stream';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { HttpResponse } from '@smithy/protocol-http';
import { authorizationRequests, enforcePolicy, policyAuthorizer, Service } from '../src/index.ts';

const calls = Number(process.env.BENCH_CALLS ?? 5000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

/** Answers every request with DynamoDB's empty success, in process. */
const answerAtOnce = {
  handle: async () => ({
    response: new HttpResponse({
      statusCode: 200,
      headers: { 'content-type': 'application/x-amz-json-1.0' },
      body: Readable.from([Buffer.from('{}')]),
    }),
  }),
};

const account = '000000000000';
const table = `arn:aws:dynamodb:us-east-1:${account}:table/svc`;
const identity = {
  principal: `arn:aws:sts::${account}:assumed-role/preview-composition-local-api/api`,
  account,
  statements: [
    {
      actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query'],
      resources: [table, `${table}/index/*`],
    },
    { actions: ['sqs:SendMessage'], resources: [`arn:aws:sqs:us-east-1:${account}:jobs`] },
  ],
};
const scope = { partition: 'aws', region: 'us-east-1', account };
const scopes = { dynamodb: scope, sqs: scope, sns: scope, eks: scope };

const client = () =>
  new DynamoDBClient({
    region: 'us-east-1',
    endpoint: 'http://127.0.0.1:9',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    requestHandler: answerAtOnce,
  });
const plain = client();
const held = client();
const authorizer = policyAuthorizer(identity);
enforcePolicy(held, () => authorizer, scopes);

async function perCall(target: DynamoDBClient): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    await target.send(new GetItemCommand({ TableName: 'svc', Key: { pk: { S: `c-${i}` } } }));
  }
  return (performance.now() - started) / calls;
}

await perCall(plain);
await perCall(held);
const plainMs: number[] = [];
const heldMs: number[] = [];
for (let round = 0; round < rounds; round++) {
  plainMs.push(await perCall(plain));
  heldMs.push(await perCall(held));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function perSecond(count: number, run: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < count; i++) await run(i);
  return count / ((performance.now() - started) / 1000);
}
const fresh = policyAuthorizer(identity);
const uncached = await perSecond(calls, (i) =>
  fresh.firstDenied([
    { action: 'sqs:SendMessage', resource: `arn:aws:sqs:us-east-1:${account}:q-${i}`, resourceType: 'queue' },
  ]),
);
const cached = await perSecond(calls, async () =>
  authorizer.firstDenied(
    await authorizationRequests(
      { service: Service.DynamoDB, operation: 'Query', input: { TableName: 'svc', IndexName: 'gsi1' } },
      scope,
    ),
  ),
);

const us = (ms: number) => `${(ms * 1000).toFixed(0)} µs`;
console.log(`GetItem answered in process at once, ${calls} calls × ${rounds} rounds (medians):`);
console.log(`  without the policy   ${us(median(plainMs))} a call`);
console.log(`  with the policy      ${us(median(heldMs))} a call`);
console.log(
  `  added                ${us(median(heldMs) - median(plainMs))} a call (×${(median(heldMs) / median(plainMs)).toFixed(2)})`,
);
console.log(`simulated decisions, each request new:      ${uncached.toFixed(0)} a second`);
console.log(`resolution and a cached decision:           ${cached.toFixed(0)} a second`);
plain.destroy();
held.destroy();
