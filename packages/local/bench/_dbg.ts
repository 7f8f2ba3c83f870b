import { startDynamoDbLocal } from '../src/dynamodb-local.ts';
import { startSqsEmulator } from '../src/fauxqs.ts';
import { startStack } from '../src/stack.ts';
import { testClock } from '../src/testing/clock.ts';

const [db, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
const stack = await startStack({
  port: 0,
  gatewayPort: 0,
  podReadyDelayMs: 20,
  emulators: { dynamodbEndpoint: db.endpoint, sqsEndpoint: sqs.endpoint },
  resourcePrefix: 'dbg-',
  clock: testClock(),
  workerSettings: { failureGraceMs: 1500, watchBoundMs: 3000 },
  log: (e) => console.log(JSON.stringify(e)),
});
const r = await fetch(`${stack.apiUrl}/v1/compositions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    project: 'demo',
    baseline: 'staging',
    name: 't',
    overrides: { 'service-d': { image: 'registry.example.com/demo/service-d:9-missing' } },
  }),
});
const { id } = (await r.json()) as { id: string };
await new Promise((r) => setTimeout(r, 6000));
const pods = await stack.cluster.listPods('staging', `preview.svc/composition=${id}`);
console.log(
  JSON.stringify(
    pods.map((p) => ({ name: p.metadata.name, labels: p.metadata.labels, cs: p.status?.containerStatuses })),
    null,
    1,
  ).slice(0, 1500),
);
const ev = (await (await fetch(`${stack.apiUrl}/v1/compositions/${id}/events?limit=50`)).json()) as {
  items: { at: string; type: string; message: string }[];
};
for (const e of ev.items.reverse()) console.log(e.at, e.type, e.message);
await stack.stop();
await Promise.all([db.stop(), sqs.stop()]);
