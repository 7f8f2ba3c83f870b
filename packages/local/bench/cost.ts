/**
 * `npm run bench:cost`: the work one preview costs. Drives N compositions through create → ready
 * → update → ready → destroy on the local stack and counts, per composition, DynamoDB requests and
 * consumed capacity by operation and call site, SQS requests and messages, Kubernetes requests by
 * verb and resource, and the worker's CPU time (the worker runs in a process of its own), then
 * prices 1,000 previews a day with public AWS prices (prices.ts).
 *
 * Nothing under measurement is changed: the counters are SDK middleware on the clients, a wrapper
 * around the worker's ClusterPort and the local cluster's fault rules (meters.ts). Readiness is
 * read through a client of the bench's own, so waiting adds nothing to the counts.
 *
 * BENCH_COMPOSITIONS (20), BENCH_CONCURRENCY (4), BENCH_POD_READY_DELAY_MS (1000),
 * BENCH_REAL_POD_READY_S (30: how long real pods take, for the Lambda duration model),
 * BENCH_OUTPUT (a path: also write the raw figures there as JSON), BENCH_WORKER_PROFILE (a
 * directory: run the worker under --cpu-prof; profile-summary.ts reads the result).
 */
import { writeFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { awsStores, createAwsClients, Entities } from '@svc/aws';
import { type Compositions, Resources, systemClock } from '@svc/core';
import { defaultWorkerSettings } from '@svc/worker';
import { localCursorKey } from '../src/stack.ts';
import { type Counts, meterDynamoDb, meterKubeRequests, meterQueue, snapshot } from './meters.ts';
import { type CountName, minimums } from './minimums.ts';
import {
  fixedMonthlyCost,
  functionMemoryGb,
  monthlyCost,
  type PreviewUsage,
  Prices,
  pricesAsOf,
  waitPolls,
} from './prices.ts';
import { startBenchStack } from './stack.ts';
import { startWorkerProcess } from './worker-process.ts';

const count = Number(process.env.BENCH_COMPOSITIONS ?? 20);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const podReadyDelayMs = Number(process.env.BENCH_POD_READY_DELAY_MS ?? 1000);
const realPodReadySeconds = Number(process.env.BENCH_REAL_POD_READY_S ?? 30);
const perDay = 1000;
const region = 'us-east-1';

const apiLogs = { entries: 0, bytes: 0 };
const stack = await startBenchStack('cost-', {
  podReadyDelayMs,
  worker: false,
  log: (entry) => {
    apiLogs.entries++;
    apiLogs.bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
  },
});
// The sweeps run on their own clock; they are measured once each at the end, not per preview.
await stack.scheduler.stop();

// The API's calls, and the sweeps' (run in this process on the worker's clients, measured apart).
const inProcess = [stack.functionClients.api, stack.functionClients.worker];
const api = {
  dynamodb: meterDynamoDb(inProcess.map((c) => c.dynamodb)),
  sqs: meterQueue(
    inProcess.map((c) => c.sqs),
    'benchSqsMeter',
  ),
  sns: meterQueue(stack.functionClients.worker.sns, 'benchSnsMeter'),
};
const kube = await meterKubeRequests(stack.clusterUrl);
const profileDirectory = process.env.BENCH_WORKER_PROFILE;
const worker = await startWorkerProcess(
  stack,
  region,
  profileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${profileDirectory}`] : [],
);

const observer = createAwsClients({
  region,
  dynamodbEndpoint: stack.endpoints.dynamodb,
  sqsEndpoint: stack.endpoints.sqs,
});
const compositions = awsStores(observer, stack.resources, systemClock, localCursorKey).compositions;

async function until(id: string, done: (record: Compositions.CompositionRecord) => boolean): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const record = await compositions.get(id);
    if (record && done(record)) return;
    if (record?.phase === 'failed')
      throw new Error(`composition ${id} failed: ${JSON.stringify(record.observed)}`);
    if (Date.now() > deadline) throw new Error(`composition ${id} stuck in ${record?.phase}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const apiLatencyMs: number[] = [];
async function call(method: string, path: string, body?: unknown): Promise<{ id: string }> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  apiLatencyMs.push(performance.now() - started);
  if (response.status !== 202)
    throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { id: string };
}

const component = 'service-b';
const image = (tag: string) => `registry.example.com/demo/${component}:${tag}`;

/** One preview's life; returns its id. */
async function lifecycle(i: number): Promise<string> {
  const { id } = await call('POST', '/v1/compositions', {
    project: 'demo',
    baseline: 'staging',
    name: `cost-${i}`,
    overrides: { [component]: { image: image(`cost-${i}`) } },
  });
  await until(id, (r) => r.phase === 'ready');
  await call('PATCH', `/v1/compositions/${id}`, {
    expected_generation: 1,
    overrides: { [component]: { image: image(`cost-${i}-2`) } },
  });
  await until(id, (r) => r.phase === 'ready' && r.observed_generation === 2);
  await call('DELETE', `/v1/compositions/${id}`);
  await until(id, (r) => r.phase === 'destroyed');
  return id;
}

/** Waits until the job queue is empty and nothing is in flight, so every delete is counted. */
async function quiet(): Promise<void> {
  const { GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
  for (;;) {
    const { Attributes } = await observer.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.resources.jobQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    if (
      Attributes?.ApproximateNumberOfMessages === '0' &&
      Attributes.ApproximateNumberOfMessagesNotVisible === '0'
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// Warm-up, not counted: caches (catalog version, topic ARNs, API discovery) fill as on a warm Lambda.
await lifecycle(-1);
await quiet();
for (const meter of Object.values(api)) meter.reset();
await Promise.all([kube.reset(), worker.reset()]);
apiLatencyMs.length = 0;
Object.assign(apiLogs, { entries: 0, bytes: 0 });

const started = performance.now();
const ids: string[] = [];
let nextIndex = 0;
await Promise.all(
  Array.from({ length: Math.min(concurrency, count) }, async () => {
    while (nextIndex < count) ids.push(await lifecycle(nextIndex++));
  }),
);
await quiet();
const wallSeconds = (performance.now() - started) / 1000;
const [workerReport, kubeCounts] = await Promise.all([worker.report(), kube.read()]);
const apiReport = {
  dynamodb: snapshot(api.dynamodb),
  sqs: snapshot(api.sqs),
  sns: snapshot(api.sns),
  latencyMs: apiLatencyMs.reduce((a, b) => a + b, 0),
  logs: { ...apiLogs },
};

/** One sweep run of each schedule (none has work: every preview is destroyed). */
const sweepRuns: Record<string, ReturnType<typeof snapshot<typeof api.dynamodb>> & { ms: number }> = {};
for (const schedule of Resources.schedules) {
  api.dynamodb.reset();
  const sweepStarted = performance.now();
  await stack.scheduler.run(schedule.name);
  sweepRuns[schedule.name] = { ...snapshot(api.dynamodb), ms: performance.now() - sweepStarted };
}

/** One status read, as `svc composition wait` makes them, for the Lambda duration of client polling. */
async function statusMs(id: string, rounds = 20): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < rounds; i++)
    await (await fetch(`${stack.apiUrl}/v1/compositions/${id}/status`)).arrayBuffer();
  return (performance.now() - started) / rounds;
}
const statusReadMs = await statusMs(ids[0] as string);

/** What one destroyed preview leaves in the table until its TTL: its partition (composition, operations, events, checks). */
async function storedBytes(id: string): Promise<number> {
  const { Items = [] } = await observer.documents.send(
    new QueryCommand({
      TableName: stack.resources.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': Entities.Composition.partitionOf(id) },
    }),
  );
  return Items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
}
const stored = await storedBytes(ids[0] as string);
const calibration = await worker.calibrate(ids[0] as string);

await worker.stop();
await kube.remove();
await stack.stop();

// ---- report ---------------------------------------------------------------------------------

const per = (value: number) => value / count;
const fmt = (value: number, digits = 1) => (Number.isInteger(value) ? String(value) : value.toFixed(digits));
const sum = <S extends string>(counts: Counts<S>, name: S | 'count') =>
  Object.values(counts).reduce(
    (total, c) => total + (name === 'count' ? c.count : (c.sums[name as S] ?? 0)),
    0,
  );

function table(headers: string[], rows: (string | number)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  return [
    line(headers),
    `| ${widths.map((w, i) => (i === 0 ? '-'.repeat(w) : `${'-'.repeat(w - 1)}:`)).join(' | ')} |`,
    ...cells.slice(1).map(line),
  ].join('\n');
}

type DynamoCounts = Counts<'rcu' | 'wcu' | 'tableUnits' | 'indexUnits' | 'items' | 'failed' | 'ms'>;
function dynamoRows(side: string, counts: DynamoCounts): (string | number)[][] {
  return Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([operation, c]) => [
      `${side} ${operation}`,
      fmt(per(c.count), 2),
      fmt(per(c.sums.items ?? 0), 2),
      fmt(per(c.sums.rcu ?? 0), 2),
      fmt(per(c.sums.wcu ?? 0), 2),
      fmt(per(c.sums.indexUnits ?? 0), 2),
      fmt((c.sums.ms ?? 0) / c.count, 1),
    ]);
}

console.log(
  `\nCost benchmark — ${count} compositions (${concurrency} at a time), create → ready → update → ready → destroy,` +
    ` one overridden component, pod-ready delay ${podReadyDelayMs} ms, ${wallSeconds.toFixed(1)} s\n`,
);
console.log(
  'DynamoDB per composition, by operation (capacity as DynamoDB Local reports it, except a transaction’s table share: computed from item sizes, see meters.ts):',
);
console.log(
  table(
    ['side operation', 'requests', 'items', 'RCU', 'WCU', 'of which GSI', 'ms each'],
    [
      ...dynamoRows('api', apiReport.dynamodb.operations),
      ...dynamoRows('worker', workerReport.dynamodb.operations),
    ],
  ),
);

const siteRows = (side: string, counts: DynamoCounts) =>
  Object.entries(counts).map(([site, c]) => [
    `${side} ${site}`,
    fmt(per(c.count), 2),
    fmt(per((c.sums.rcu ?? 0) + (c.sums.wcu ?? 0)), 2),
  ]);
console.log('\nDynamoDB per composition, by call site (caller → store):');
console.log(
  table(
    ['call site', 'requests', 'units'],
    [...siteRows('api', apiReport.dynamodb.sites), ...siteRows('worker', workerReport.dynamodb.sites)].sort(
      (a, b) => String(a[0]).localeCompare(String(b[0])),
    ),
  ),
);
console.log('\nTransactWriteItems per composition, by what they write:');
console.log(
  table(
    ['items', 'transactions', 'WCU'],
    Object.entries({
      ...prefixed('api', apiReport.dynamodb.transactions),
      ...prefixed('worker', workerReport.dynamodb.transactions),
    }).map(([shape, c]) => [shape, fmt(per(c.count), 2), fmt(per(c.sums.wcu ?? 0), 2)]),
  ),
);

function prefixed<T>(prefix: string, record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [`${prefix} ${k}`, v]));
}

const indexUnits = new Map<string, number>();
for (const report of [apiReport, workerReport]) {
  for (const [where, c] of Object.entries(report.dynamodb.indexes)) {
    indexUnits.set(where, (indexUnits.get(where) ?? 0) + (c.sums.units ?? 0));
  }
}
console.log('\nDynamoDB capacity per composition, by where it is spent:');
console.log(
  table(
    ['table or index', 'units'],
    [...indexUnits]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([where, units]) => [where, fmt(per(units), 2)]),
  ),
);

type QueueCounts = Counts<'messages' | 'bytes' | 'failed' | 'ms'>;
const queueRows = (side: string, counts: QueueCounts) =>
  Object.entries(counts).map(([operation, c]) => [
    `${side} ${operation}`,
    fmt(per(c.count), 2),
    fmt(per(c.sums.messages ?? 0), 2),
  ]);
console.log('\nSQS and SNS per composition:');
console.log(
  table(
    ['side operation', 'requests', 'messages'],
    [
      ...queueRows('api sqs', apiReport.sqs.operations),
      ...queueRows('worker sqs', workerReport.sqs.operations),
      ...queueRows('api sns', apiReport.sns.operations),
      ...queueRows('worker sns', workerReport.sns.operations),
    ],
  ),
);
console.log('\nSQS by call site (worker):');
console.log(
  table(
    ['call site', 'requests'],
    Object.entries(workerReport.sqs.sites).map(([s, c]) => [s, fmt(per(c.count), 2)]),
  ),
);

const listedKube = Object.entries(kubeCounts)
  .filter(([key]) => key !== 'total')
  .sort(([a], [b]) => a.localeCompare(b));
const otherKube = (kubeCounts.total ?? 0) - listedKube.reduce((total, [, n]) => total + n, 0);
console.log('\nKubernetes API requests per composition (the local cluster counts them):');
console.log(
  table(
    ['verb resource', 'requests'],
    [
      ...listedKube.map(([key, n]) => [key, fmt(per(n), 2)]),
      ['other (discovery, /version)', fmt(per(otherKube), 2)],
      ['total', fmt(per(kubeCounts.total ?? 0), 2)],
    ],
  ),
);
console.log('\nClusterPort calls per composition, by caller (the worker):');
console.log(
  table(
    ['caller → method', 'calls', 'ms each'],
    Object.entries(workerReport.cluster.calls)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([site, c]) => [site, fmt(per(c.count), 2), fmt((c.sums.ms ?? 0) / c.count, 1)]),
  ),
);

const cpuMs = (workerReport.cpuMicros.user + workerReport.cpuMicros.system) / 1000;
console.log(
  `\nWorker per composition: CPU ${fmt(per(cpuMs))} ms (user ${fmt(per(workerReport.cpuMicros.user / 1000))}, system ${fmt(per(workerReport.cpuMicros.system / 1000))});` +
    ` ${fmt(per(workerReport.invocations.count), 2)} messages handled, ${fmt(per(workerReport.invocations.totalMs))} ms handler wall time` +
    ` (${workerReport.invocations.failed} failed); ${fmt(per(workerReport.logs.entries), 2)} log lines.`,
);
console.log(
  `API per composition: 3 requests, ${fmt(per(apiReport.latencyMs))} ms answering them (client-side); ${fmt(per(apiReport.logs.entries), 2)} log lines.`,
);

// ---- money ----------------------------------------------------------------------------------

const dynamoUnits = (counts: DynamoCounts) => ({ rcu: sum(counts, 'rcu'), wcu: sum(counts, 'wcu') });
const apiUnits = dynamoUnits(apiReport.dynamodb.operations);
const workerUnits = dynamoUnits(workerReport.dynamodb.operations);
const sqsRequests = sum(apiReport.sqs.operations, 'count') + sum(workerReport.sqs.operations, 'count');
const snsRequests = sum(apiReport.sns.operations, 'count') + sum(workerReport.sns.operations, 'count');
const messages = per(workerReport.invocations.count);
const rollouts = 2;
const measuredWorkerSeconds = per(workerReport.invocations.totalMs) / 1000;
/**
 * Real pods take longer than local ones. `await-rollout` holds its invocation for its first watch
 * (up to `watchBoundMs`), then looks again every `recheckDelaySeconds` in a short invocation of
 * its own until the pods are ready. What one such look costs was measured with
 * BENCH_POD_READY_DELAY_MS=12000 and 30000 against the default run, 2026-11-26: 0.19 s of handler
 * time, one message (3 SQS requests) and 2 reads; the first look of a rollout records what it saw
 * (a progress write of 7 WCU), later ones that see nothing new write nothing for about a minute.
 */
const perLook = { seconds: 0.19, sqsRequests: 3, readUnits: 2 };
const firstLookWriteUnits = 7;
const watchSeconds = defaultWorkerSettings.watchBoundMs / 1000;
const looksAfterWatch = (podSeconds: number) =>
  Math.max(0, Math.ceil((podSeconds - watchSeconds) / defaultWorkerSettings.recheckDelaySeconds));
const podReadySeconds = podReadyDelayMs / 1000;
const extraLooks = rollouts * (looksAfterWatch(realPodReadySeconds) - looksAfterWatch(podReadySeconds));
const waits = (podSeconds: number) => (looksAfterWatch(podSeconds) > 0 ? rollouts : 0);
const extraLookWriteUnits = (waits(realPodReadySeconds) - waits(podReadySeconds)) * firstLookWriteUnits;
const modelledWorkerSeconds =
  measuredWorkerSeconds +
  rollouts * (Math.min(realPodReadySeconds, watchSeconds) - Math.min(podReadySeconds, watchSeconds)) +
  extraLooks * perLook.seconds;
/** A client waits on each rollout with `svc composition wait`, for as long as the pods take. */
const polls = rollouts * waitPolls(realPodReadySeconds);
const usage = (workerSeconds: number, clientPolls: number, looks = 0): PreviewUsage => ({
  apiRequests: 3 + clientPolls,
  apiSeconds: (per(apiReport.latencyMs) + clientPolls * statusReadMs) / 1000,
  workerInvocations: messages + looks,
  workerSeconds,
  // Each status read is one consistent GetItem of an item under 4 KB.
  readUnits: per(apiUnits.rcu + workerUnits.rcu) + clientPolls + looks * perLook.readUnits,
  writeUnits: per(apiUnits.wcu + workerUnits.wcu) + (looks ? extraLookWriteUnits : 0),
  // Lambda's event source receives and deletes in batches; one receive and one delete per message is the upper bound.
  sqsRequests: per(sqsRequests) + looks * perLook.sqsRequests,
  logBytes: per(workerReport.logs.bytes + apiReport.logs.bytes),
  storedBytes: stored,
  storedDays: 31,
});
const columns = {
  [`as measured (worker ${fmt(measuredWorkerSeconds, 2)} s)`]: monthlyCost(
    usage(measuredWorkerSeconds, 0),
    perDay,
  ),
  [`pods ready in ${realPodReadySeconds} s (worker ${fmt(modelledWorkerSeconds, 1)} s, ${fmt(messages + extraLooks, 2)} messages)`]:
    monthlyCost(usage(modelledWorkerSeconds, 0, extraLooks), perDay),
  [`and ${polls} status polls`]: monthlyCost(usage(modelledWorkerSeconds, polls, extraLooks), perDay),
};
const minutesPerMonth = 30 * 24 * 60;
const scheduleInvocations = Resources.schedules.reduce(
  (total, schedule) => total + (minutesPerMonth * 60) / schedule.periodSeconds,
  0,
);
const fixed = fixedMonthlyCost({
  scheduleInvocations,
  scheduleSeconds:
    Object.values(sweepRuns).reduce((total, run) => total + run.ms, 0) / Object.keys(sweepRuns).length / 1000,
  scheduleReadUnits: 0.5,
  // Lambda's SQS event source long-polls with five pollers when idle (20 s each): an assumption, not measured here.
  idleReceives: 5 * 3 * minutesPerMonth,
});
const usd = (value: number) => `$${value < 10 ? value.toFixed(2) : value.toFixed(0)}`;
console.log(
  `\nMonthly cost of ${perDay} previews a day (30 days), us-east-1 on-demand prices as of ${pricesAsOf}:`,
);
console.log(
  table(
    ['service', ...Object.keys(columns), 'fixed (schedules, idle queue)'],
    (['lambda', 'apiGateway', 'dynamodb', 'sqs', 'cloudwatch', 'total'] as const).map((k) => [
      k,
      ...Object.values(columns).map((cost) => usd(cost[k])),
      usd(fixed[k]),
    ]),
  ),
);
console.log(
  `  Lambda ${functionMemoryGb} GB arm64 at $${Prices.lambda.perGbSecond.usd}/GB-s and $${Prices.lambda.perMillionRequests.usd}/M; API Gateway $${Prices.apiGateway.perMillionRequests.usd}/M;` +
    ` DynamoDB $${Prices.dynamodb.perMillionWriteUnits.usd}/M WRU, $${Prices.dynamodb.perMillionReadUnits.usd}/M RRU; SQS $${Prices.sqs.perMillionRequests.usd}/M;` +
    ` CloudWatch Logs $${Prices.cloudwatchLogs.perGbIngested.usd}/GB. Per preview: ${fmt(per(sqsRequests), 2)} SQS and ${fmt(per(snsRequests), 2)} SNS requests,` +
    ` ${fmt(stored / 1000)} KB kept 31 days; a status read answers in ${fmt(statusReadMs)} ms.`,
);

console.log('\nOne run of each sweep (nothing due):');
console.log(
  table(
    ['sweep', 'DynamoDB requests', 'RCU', 'ms'],
    Object.entries(sweepRuns).map(([name, s]) => [
      name,
      sum(s.operations, 'count'),
      fmt(sum(s.operations, 'rcu'), 2),
      fmt(s.ms),
    ]),
  ),
);

// ---- against the minimums -------------------------------------------------------------------

const measuredCounts: Record<CountName, number> = {
  'DynamoDB reads (requests)': per(
    sum(filter(apiReport.dynamodb.operations, readOps), 'count') +
      sum(filter(workerReport.dynamodb.operations, readOps), 'count'),
  ),
  'DynamoDB writes (requests)': per(
    sum(filter(apiReport.dynamodb.operations, writeOps), 'count') +
      sum(filter(workerReport.dynamodb.operations, writeOps), 'count'),
  ),
  'DynamoDB RCU': per(apiUnits.rcu + workerUnits.rcu),
  'DynamoDB WCU': per(apiUnits.wcu + workerUnits.wcu),
  'SQS messages sent': per(sent(apiReport.sqs.operations) + sent(workerReport.sqs.operations)),
  'SQS messages received': per(workerReport.sqs.operations.ReceiveMessage?.sums.messages ?? 0),
  'SQS requests': per(sqsRequests),
  'Kubernetes requests': per(kubeCounts.total ?? 0),
  'worker invocations (messages handled)': messages,
};
function readOps(operation: string): boolean {
  return ['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems'].includes(operation);
}
function writeOps(operation: string): boolean {
  return ['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'].includes(operation);
}
function filter<S extends string>(counts: Counts<S>, keep: (operation: string) => boolean): Counts<S> {
  return Object.fromEntries(Object.entries(counts).filter(([operation]) => keep(operation)));
}
function sent(counts: QueueCounts): number {
  return (counts.SendMessage?.sums.messages ?? 0) + (counts.SendMessageBatch?.sums.messages ?? 0);
}
const minimumRows = (Object.entries(minimums) as [CountName, { minimum: number }][]).map(
  ([name, { minimum }]) => {
    const value = measuredCounts[name];
    return [name, fmt(value, 2), fmt(minimum, 2), `${(value / minimum).toFixed(2)}×`];
  },
);
// CPU has no count to reason from, so its floor is the minimum counts at the clients' own CPU per request.
const cpuFloor =
  (minimums['DynamoDB reads (requests)'].minimum +
    minimums['DynamoDB writes (requests)'].minimum +
    minimums['SQS requests'].minimum) *
    calibration.dynamodbGetMs +
  minimums['Kubernetes requests'].minimum * calibration.kubeGetMs;
minimumRows.push(['worker CPU ms', fmt(per(cpuMs)), fmt(cpuFloor), `${(per(cpuMs) / cpuFloor).toFixed(2)}×`]);
console.log('\nAgainst the minimum the design needs (docs/performance.md says why):');
console.log(table(['count per preview', 'measured', 'minimum', 'ratio'], minimumRows));
console.log(
  `  CPU floor: the minimum requests at ${calibration.dynamodbGetMs.toFixed(2)} ms per AWS SDK request (a consistent GetItem)` +
    ` and ${calibration.kubeGetMs.toFixed(2)} ms per Kubernetes request (a get), measured in the worker process after the run.`,
);

if (process.env.BENCH_OUTPUT) {
  writeFileSync(
    process.env.BENCH_OUTPUT,
    JSON.stringify(
      {
        count,
        concurrency,
        podReadyDelayMs,
        wallSeconds,
        api: apiReport,
        worker: workerReport,
        kube: kubeCounts,
        sweepRuns,
        stored,
        calibration,
        statusReadMs,
        costs: columns,
        fixed,
      },
      null,
      2,
    ),
  );
}
