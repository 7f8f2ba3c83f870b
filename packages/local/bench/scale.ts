/**
 * `npm run bench:scale`: the local stack grown to SCALE_N (2,000) live compositions at a sustained
 * create rate (SCALE_RATE a second) while expiries and destroys churn — of every 8 creates one
 * lives a minute and is expired by the sweep, one is destroyed 5 s after its create — measured at
 * 0, N/2 and N live, each figure next to its floor at the same level (scale-report.ts says which).
 *
 * The worker runs in a process of its own (cost-worker.ts) so that its memory is its own; the
 * sweeps run from this process on their own metered clients every SCALE_SWEEP_SECONDS (15), in
 * place of the stack's schedules, so that each run's requests are counted.
 */
import { loadavg } from 'node:os';
import { awsStores, createAwsClients } from '@svc/aws';
import { Compositions, Forge, type Resources, systemClock } from '@svc/core';
import { sweeps } from '@svc/worker';
import { localCursorKey } from '../src/stack.ts';
import { meterDynamoDb, meterQueue, snapshot } from './meters.ts';
import { createComposition, listPhases, phaseOf } from './observe.ts';
import { measureApi, startFloorServer } from './scale-api.ts';
import { bareRollouts, clusterContents } from './scale-cluster.ts';
import { type Level, report, type SweepRun } from './scale-report.ts';
import { startBenchStack } from './stack.ts';
import { startWorkerProcess } from './worker-process.ts';

const n = Number(process.env.SCALE_N ?? 2000);
const rate = Number(process.env.SCALE_RATE ?? 10);
const podReadyDelayMs = Number(process.env.SCALE_POD_READY_DELAY_MS ?? 50);
const probes = Number(process.env.SCALE_PROBES ?? 8);
const sweepEveryMs = Number(process.env.SCALE_SWEEP_SECONDS ?? 15) * 1000;
const api = {
  concurrency: Number(process.env.SCALE_CONCURRENCY ?? 8),
  seconds: Number(process.env.SCALE_API_SECONDS ?? 1),
  rounds: Number(process.env.SCALE_API_ROUNDS ?? 3),
};
/** Compositions per level whose lag under the sustained rate is reported. */
const lagSample = 50;
const region = 'us-east-1';

const started = new Date();
const startedAt = performance.now();
const loadAtStart = loadavg()[0] ?? 0;
const stack = await startBenchStack('scale-', {
  podReadyDelayMs,
  worker: false,
  forge: false,
});
await stack.scheduler.stop();
const worker = await startWorkerProcess(stack, region, ['--expose-gc']);
const floor = await startFloorServer(stack);

const sweepClients = createAwsClients({
  region,
  dynamodbEndpoint: stack.endpoints.dynamodb,
  sqsEndpoint: stack.endpoints.sqs,
});
const sweepMeters = {
  dynamodb: meterDynamoDb(sweepClients.dynamodb),
  sqs: meterQueue(sweepClients.sqs, 'benchSqsMeter'),
};
const scheduled = sweeps({
  ...awsStores(sweepClients, stack.resources, systemClock, localCursorKey),
  clock: systemClock,
  log: () => {},
  previewUrl: (id, domain) => `http://${id}.${domain}/`,
  clusters: stack.workerDeps.clusters,
  messaging: stack.workerDeps.messaging,
  forge: null,
  forgeSettings: Forge.defaultForgeSettings,
});

/** Where the run is, on stderr: a run at the default N takes minutes. */
const progress = (what: string) =>
  console.error(`[${((performance.now() - startedAt) / 1000).toFixed(0).padStart(4)} s] ${what}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
const Kind = { Kept: 'kept', Expiring: 'expiring', Destroyed: 'destroyed' } as const;
type Kind = (typeof Kind)[keyof typeof Kind];
const kindOf = (seq: number): Kind =>
  seq % 8 === 3 ? Kind.Expiring : seq % 8 === 7 ? Kind.Destroyed : Kind.Kept;

const counts = { created: 0, gone: 0, kept: 0 };
let sequence = 0;
const keptIds: string[] = [];
const destroys = new Set<Promise<unknown>>();
let sweeping: Promise<unknown> = Promise.resolve();

async function create(seq: number, kind: Kind): Promise<string> {
  const id = await createComposition(stack.apiUrl, seq, {
    name: `scale-${seq}`,
    tag: `scale-${seq}`,
    ...(kind === Kind.Expiring ? { ttl: '1m' } : {}),
  });
  counts.created++;
  return id;
}

function destroy(id: string): void {
  const sent = fetch(`${stack.apiUrl}/v1/compositions/${id}`, { method: 'DELETE' }).then((response) => {
    if (response.status !== 202) throw new Error(`destroy of ${id} answered ${response.status}`);
    counts.gone++;
  });
  destroys.add(sent);
  void sent.finally(() => destroys.delete(sent));
}

/** One sweep on the metered clients; runs one at a time, as the schedules do. */
function runSweep(name: Resources.ScheduleName): Promise<SweepRun> {
  const run = sweeping.then(async (): Promise<SweepRun> => {
    sweepMeters.dynamodb.reset();
    sweepMeters.sqs.reset();
    const live = counts.created - counts.gone;
    const t0 = performance.now();
    const done = Number(await scheduled[name]());
    const ms = performance.now() - t0;
    if (name === 'expiry-sweep') counts.gone += done;
    const tally = (meter: { operations: Record<string, { count: number }> }) =>
      Object.fromEntries(Object.entries(meter.operations).map(([op, c]) => [op, c.count]));
    return {
      sweep: name,
      live,
      done,
      ms,
      dynamodb: tally(snapshot(sweepMeters.dynamodb)),
      sqs: tally(snapshot(sweepMeters.sqs)),
    };
  });
  sweeping = run.catch(() => {});
  return run;
}

const growthSweeps: SweepRun[] = [];

/** Creates at the sustained rate, churning, until `kept` compositions are kept; the sweep runs on its period. */
async function grow(targetKept: number): Promise<void> {
  const interval = 1000 / rate;
  const begun = performance.now();
  const pending = new Set<Promise<unknown>>();
  let lastSweep = performance.now();
  for (let i = 0; counts.kept < targetKept; i++) {
    await sleep(begun + i * interval - performance.now());
    const seq = sequence++;
    const kind = kindOf(seq);
    if (kind === Kind.Kept) counts.kept++;
    const created = create(seq, kind).then((id) => {
      if (kind === Kind.Kept) keptIds.push(id);
      if (kind === Kind.Destroyed) setTimeout(() => destroy(id), 5000);
    });
    pending.add(created);
    void created.finally(() => pending.delete(created));
    if (performance.now() - lastSweep >= sweepEveryMs) {
      lastSweep = performance.now();
      void runSweep('expiry-sweep').then((run) => growthSweeps.push(run));
    }
    // A stack slower than the rate holds the creates back rather than piling up connections.
    if (pending.size >= 64) await Promise.race(pending);
  }
  await Promise.all(pending);
}

const unsettled = new Set(['created', 'provisioning', 'updating', 'destroying']);

/** Until every destroy was sent and nothing is on its way: the queue drained. */
async function drain(): Promise<{ live: number; failed: number; seconds: number }> {
  const t0 = performance.now();
  await sleep(5500);
  await Promise.all(destroys);
  for (;;) {
    const phases = await listPhases(stack.apiUrl);
    if (!phases.some((c) => unsettled.has(c.phase))) {
      const failed = phases.filter((c) => c.phase === 'failed').length;
      return { live: phases.length, failed, seconds: (performance.now() - t0) / 1000 };
    }
    await sleep(500);
  }
}

async function memory(): Promise<{ heapUsed: number; rss: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await sleep(50);
  gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  return { heapUsed, rss };
}

/** Accepted → ready event, minus the pod-ready delay, from the composition's own events. */
async function lag(id: string): Promise<number> {
  const { items } = await stack.stores.compositions.listEvents(id, { limit: 200, after: null });
  const at = (type: string) => Date.parse(items.find((e) => e.type === type)?.at ?? '');
  return at(Compositions.EventType.Ready) - at(Compositions.EventType.Accepted) - podReadyDelayMs;
}

/** `probes` compositions one after another, each waited for; destroyed by the caller. */
async function probeRollouts(): Promise<{ lags: number[]; ids: string[] }> {
  const lags: number[] = [];
  const ids: string[] = [];
  for (let i = 0; i < probes; i++) {
    const id = await create(sequence++, Kind.Kept);
    for (;;) {
      const phase = await phaseOf(stack.apiUrl, id);
      if (phase === 'ready') break;
      if (phase === 'failed') throw new Error(`probe ${id} failed`);
      await sleep(10);
    }
    lags.push(await lag(id));
    ids.push(id);
  }
  return { lags, ids };
}

/** Everything measured at one level; `window` holds the kept compositions created just before it. */
async function measureLevel(index: number, window: readonly string[]): Promise<Level> {
  const drained = await drain();
  progress(`level ${index}: ${drained.live} live, drained in ${drained.seconds.toFixed(1)} s; measuring`);
  const [stackMemory, workerReport, cluster] = await Promise.all([
    memory(),
    worker.report(),
    clusterContents(stack.clusterUrl),
  ]);
  const sample = keptIds[Math.floor(keptIds.length / 2)] ?? (await create(sequence++, Kind.Kept));
  const apiFigures = await measureApi(stack, floor, { id: sample, live: drained.live }, api);
  progress(`level ${index}: API measured; rollouts one at a time`);
  await worker.reset();
  const probed = await probeRollouts();
  const probeReport = await worker.report();
  for (const id of probed.ids) destroy(id);
  const count = (tallies: Record<string, { count: number }>) =>
    Object.values(tallies).reduce((sum, c) => sum + c.count, 0) / probes;
  progress(`level ${index}: rollouts measured; bare Deployments and sweeps`);
  const bareRollout = await bareRollouts(stack.clusterUrl, probes, podReadyDelayMs, String(index));
  const levelSweeps = [await runSweep('expiry-sweep'), await runSweep('redispatch-sweep')];
  return {
    label: String(index),
    live: drained.live,
    failed: drained.failed,
    drainSeconds: drained.seconds,
    loadAverage: loadavg()[0] ?? 0,
    api: apiFigures,
    lagAlone: probed.lags,
    lagUnderLoad: await Promise.all(window.map(lag)),
    bareRollout,
    perRollout: {
      dynamodb: count(probeReport.dynamodb.operations),
      sqs: count(probeReport.sqs.operations),
      cluster: count(probeReport.cluster.calls),
    },
    memory: {
      stackHeap: stackMemory.heapUsed,
      stackRss: stackMemory.rss,
      workerHeap: workerReport.memory.heapUsed,
      workerRss: workerReport.memory.rss,
    },
    cluster,
    sweeps: levelSweeps,
  };
}

const levels: Level[] = [];
const keptAt = [0, Math.round(n / 2), n];
for (const [index, target] of keptAt.entries()) {
  progress(`growing to ${target} kept compositions`);
  await grow(target);
  const window = index === 0 ? [] : keptIds.slice(Math.max(0, target - lagSample), target);
  levels.push(await measureLevel(index, window));
  console.error(
    `level ${index}: ${levels.at(-1)?.live} live after ${((performance.now() - startedAt) / 1000).toFixed(0)} s`,
  );
}
// The empty stack's lag under the rate: the first compositions of the growth that followed it.
if (levels[0]) levels[0].lagUnderLoad = await Promise.all(keptIds.slice(0, lagSample).map(lag));

console.log(
  report({
    n,
    rate,
    podReadyDelayMs,
    levels,
    sweeps: growthSweeps,
    started,
    seconds: (performance.now() - startedAt) / 1000,
    loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
  }),
);

await floor.stop();
await worker.stop();
await stack.stop();
