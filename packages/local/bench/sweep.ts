/**
 * `npm run bench:sweep`: the expiry sweep must cost O(expired), not O(all). Two tables on one
 * DynamoDB Local: one holds only the 100 compositions that expire, the other the same 100 among
 * BENCH_LIVE (9,900) unexpired ones, written straight into the table with the aws store's item
 * layout (BatchWriteItem; the API would take minutes). Each round seeds 100 newly expired
 * compositions into both and times one run of the worker's expiry sweep on each, alternating which
 * goes first; the report is the median time ratio (target ≤ 1.5) and the requests one run makes.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { awsStores, createAwsClients, Entities } from '@svc/aws';
import { Compositions, IdPrefix, newId, Operations, systemClock } from '@svc/core';

const { Phase } = Compositions;
const { OperationKind, OperationStatus, OwnerKind } = Operations;

import { startDynamoDbLocal } from '../src/dynamodb-local.ts';
import { startSqsEmulator } from '../src/fauxqs.ts';
import { provision } from '../src/provision.ts';
import { localCursorKey } from '../src/stack.ts';
import { meterDynamoDb, meterQueue, snapshot } from './meters.ts';

const live = Number(process.env.BENCH_LIVE ?? 9900);
const expiring = 100;
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);

const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
const clients = createAwsClients({
  region: 'us-east-1',
  dynamodbEndpoint: dynamodb.endpoint,
  sqsEndpoint: sqs.endpoint,
});
const tables = {
  small: await provision(clients, 'sweep-small-'),
  large: await provision(clients, 'sweep-large-'),
};

/** A ready composition with nothing in flight, as a finished create leaves it. */
function composition(expiresAt: Date): Compositions.CompositionRecord {
  const id = newId(IdPrefix.Composition);
  const created = new Date(expiresAt.getTime() - 3600_000).toISOString();
  const image = {
    image: 'registry.example.com/demo/service-b:sweep',
    source: 'image',
    build_id: null,
    digest: null,
  } as const;
  return {
    id,
    project: 'demo',
    baseline: 'staging',
    namespace: 'staging',
    name: `sweep-${id}`,
    owner: { kind: OwnerKind.User, subject: 'bench' },
    generation: 1,
    observed_generation: 1,
    phase: Phase.Ready,
    ttl_seconds: 3600,
    expires_at: expiresAt.toISOString(),
    created_at: created,
    updated_at: created,
    message_isolation: false,
    overrides: { 'service-b': { image: image.image, build_id: null } },
    desired: {
      images: { 'service-b': image },
      inherited: ['service-a', 'service-c', 'service-d'],
      profile_revisions: { 'service-a': 1, 'service-b': 1, 'service-c': 1, 'service-d': 1 },
      catalog_version: 1,
      catalog_version_id: 'v-bench',
    },
    observed: {
      components: { 'service-b': { image: image.image, ready: true, generation: 1 } },
      blockers: [],
      updated_at: created,
    },
    public_url: `http://${id}.preview.localhost:8082/`,
    public_ready: true,
    latest_operation: {
      id: newId(IdPrefix.Operation),
      kind: OperationKind.Create,
      status: OperationStatus.Succeeded,
    },
    active_operation: null,
    epoch: 1,
    message_subscriptions: null,
    destroyed_at: null,
    lock_version: 3,
  };
}

async function seed(tableName: string, count: number, expiresAt: () => Date): Promise<void> {
  const items = Array.from({ length: count }, () => Entities.Composition.toItem(composition(expiresAt())));
  const batches: (typeof items)[] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        let pending = batches[next++] as typeof items;
        while (pending.length) {
          const { UnprocessedItems } = await clients.documents.send(
            new BatchWriteCommand({
              RequestItems: { [tableName]: pending.map((Item) => ({ PutRequest: { Item } })) },
            }),
          );
          pending = (UnprocessedItems?.[tableName] ?? []).map(
            (r) => r.PutRequest?.Item as (typeof items)[number],
          );
        }
      }
    }),
  );
}

const seedStarted = performance.now();
const future = () => new Date(Date.now() + 30 * 24 * 3600_000 * (0.5 + Math.random()));
await seed(tables.large.tableName, live, future);
console.log(`seeded ${live} live compositions in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const meters = { dynamodb: meterDynamoDb(clients.dynamodb), sqs: meterQueue(clients.sqs, 'benchSqsMeter') };
const log = () => {};
const sweepOf = (table: { tableName: string; jobQueueUrl: string }) => {
  const deps = { ...awsStores(clients, table, systemClock, localCursorKey), clock: systemClock, log };
  return () => Compositions.expireDue(deps);
};

async function timedSweep(which: 'small' | 'large'): Promise<number> {
  const started = performance.now();
  const expired = await sweepOf(tables[which])();
  const ms = performance.now() - started;
  if (expired !== expiring) throw new Error(`the ${which} sweep expired ${expired}, expected ${expiring}`);
  return ms;
}

const times: Record<'small' | 'large', number[]> = { small: [], large: [] };
const oneRun: Partial<
  Record<
    'small' | 'large',
    {
      dynamodb: ReturnType<typeof snapshot<typeof meters.dynamodb>>;
      sqs: ReturnType<typeof snapshot<typeof meters.sqs>>;
    }
  >
> = {};
for (let round = 0; round < rounds; round++) {
  const past = () => new Date(Date.now() - 60_000 - Math.random() * 3600_000);
  await Promise.all([
    seed(tables.small.tableName, expiring, past),
    seed(tables.large.tableName, expiring, past),
  ]);
  const order: ('small' | 'large')[] = round % 2 === 0 ? ['small', 'large'] : ['large', 'small'];
  for (const which of order) {
    meters.dynamodb.reset();
    meters.sqs.reset();
    times[which].push(await timedSweep(which));
    oneRun[which] = { dynamodb: snapshot(meters.dynamodb), sqs: snapshot(meters.sqs) };
  }
}

await Promise.all([dynamodb.stop(), sqs.stop()]);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const ratios = times.large.map((large, i) => large / (times.small[i] ?? Number.NaN));
const ratio = median(ratios);
console.log(
  `\nExpiry sweep — ${expiring} expired among ${expiring} vs among ${live + expiring} compositions, ${rounds} alternating rounds\n`,
);
console.log(
  `  among ${expiring}:`.padEnd(18),
  times.small.map((t) => `${t.toFixed(0)} ms`).join('  '),
  ` median ${median(times.small).toFixed(0)} ms`,
);
console.log(
  `  among ${live + expiring}:`.padEnd(18),
  times.large.map((t) => `${t.toFixed(0)} ms`).join('  '),
  ` median ${median(times.large).toFixed(0)} ms`,
);
console.log(
  `  ratio per round: ${ratios.map((r) => r.toFixed(2)).join(' ')}; median ${ratio.toFixed(2)} (target ≤ 1.5) ${ratio <= 1.5 ? 'OK' : 'ABOVE TARGET'}`,
);
for (const which of ['small', 'large'] as const) {
  const run = oneRun[which];
  console.log(
    `\nOne sweep run among ${which === 'small' ? expiring : live + expiring} (requests, items, capacity):`,
  );
  for (const [operation, c] of Object.entries(run?.dynamodb.operations ?? {})) {
    console.log(
      `  DynamoDB ${operation.padEnd(20)} ${String(c.count).padStart(4)} requests  ${String(c.sums.items ?? 0).padStart(4)} items  RCU ${(c.sums.rcu ?? 0).toFixed(1)}  WCU ${(c.sums.wcu ?? 0).toFixed(0)}`,
    );
  }
  for (const [operation, c] of Object.entries(run?.sqs.operations ?? {})) {
    console.log(`  SQS ${operation.padEnd(25)} ${String(c.count).padStart(4)} requests`);
  }
}
process.exit(ratio <= 1.5 ? 0 : 1);
