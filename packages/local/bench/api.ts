/**
 * `npm run bench:api`: the API's status read and create against the floor of this stack — a bare
 * Hono route doing one consistent GetItem on the same table — measured side by side in one run,
 * alternating rounds so machine noise hits both alike.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { listenNode } from '@svc/api';
import { Entities } from '@svc/aws';
import { Hono } from 'hono';
import { type LoadResult, load, row } from './load.ts';
import { startBenchStack } from './stack.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

const stack = await startBenchStack('bench-', {
  worker: false,
});

const floor = new Hono();
floor.get('/floor/:id', async (c) => {
  const { Item } = await stack.clients.documents.send(
    new GetCommand({
      TableName: stack.resources.tableName,
      Key: Entities.Composition.key(c.req.param('id')),
      ConsistentRead: true,
    }),
  );
  return Item ? c.json({ id: Item.id, phase: Item.phase }) : c.json({ error: 'not found' }, 404);
});
const floorServer = await listenNode(floor.fetch, '127.0.0.1', 0);
const floorPort = (floorServer.address() as { port: number }).port;

const createBody = () =>
  JSON.stringify({ project: 'demo', baseline: 'staging', name: 'bench', overrides: {} });
const first = await fetch(`${stack.apiUrl}/v1/compositions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: createBody(),
});
const { id } = (await first.json()) as { id: string };

const runs: Record<string, LoadResult[]> = { floor: [], status: [], create: [] };
const warm = { concurrency, seconds: 1 };
await load({ ...warm, url: `http://127.0.0.1:${floorPort}/floor/${id}`, expectStatus: 200 });
await load({ ...warm, url: `${stack.apiUrl}/v1/compositions/${id}/status`, expectStatus: 200 });

for (let round = 0; round < rounds; round++) {
  runs.floor?.push(
    await load({ url: `http://127.0.0.1:${floorPort}/floor/${id}`, concurrency, seconds, expectStatus: 200 }),
  );
  runs.status?.push(
    await load({
      url: `${stack.apiUrl}/v1/compositions/${id}/status`,
      concurrency,
      seconds,
      expectStatus: 200,
    }),
  );
  runs.create?.push(
    await load({
      url: `${stack.apiUrl}/v1/compositions`,
      method: 'POST',
      body: createBody,
      concurrency,
      seconds,
      expectStatus: 202,
    }),
  );
}

const median = (results: LoadResult[]): LoadResult => {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)] as LoadResult;
};
const floorResult = median(runs.floor ?? []);
const statusResult = median(runs.status ?? []);
const createResult = median(runs.create ?? []);

console.log(
  `\nAPI benchmark — ${rounds} alternating rounds of ${seconds}s, ${concurrency} concurrent clients, medians\n`,
);
console.log(row('floor: Hono + one GetItem', floorResult));
console.log(row('GET /v1/compositions/{id}/status', statusResult));
console.log(row('POST /v1/compositions', createResult));
const statusRatio = statusResult.rps / floorResult.rps;
console.log(
  `\nstatus / floor throughput: ${statusRatio.toFixed(2)}×  (target ≥ 0.70×) ${statusRatio >= 0.7 ? 'OK' : 'BELOW TARGET'}`,
);
console.log(`create / floor throughput: ${(createResult.rps / floorResult.rps).toFixed(2)}×`);
console.log(`status p50 / floor p50:    ${(statusResult.p50 / floorResult.p50).toFixed(2)}×`);

await new Promise<void>((resolve) => floorServer.close(() => resolve()));
await stack.stop();
process.exit(statusRatio >= 0.7 ? 0 : 1);
