/**
 * `npm run bench:burst`: where the time of a burst goes. Creates BENCH_CONCURRENT (200)
 * compositions at once on the same stack as `bench:rollout` (its poller, 16 messages at a time),
 * and measures, per composition, the queue wait of each message (sent → handler start) and each
 * step's duration (from the step events), the latency of DynamoDB and SQS requests by operation
 * and call site, how many handlers were in flight, and the CPU time of this process (API, worker,
 * local cluster, fauxqs, load generator), of DynamoDB Local's JVM and of the whole machine.
 *
 * For a profile of this process: node --cpu-prof --cpu-prof-dir=<dir> packages/local/bench/burst.ts,
 * then node packages/local/bench/profile-summary.ts <dir>/<file>.cpuprofile.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Compositions, IdPrefix, newId, type Operations } from '@svc/core';

type CompositionEvent = Compositions.CompositionEvent;
const { EventType } = Compositions;

import { startPoller } from '@svc/worker';
import { meterDynamoDb, meterQueue, snapshot } from './meters.ts';
import { createComposition, listPhases, phaseOf } from './observe.ts';
import { startBenchStack } from './stack.ts';

const concurrent = Number(process.env.BENCH_CONCURRENT ?? 200);
const podReadyDelayMs = Number(process.env.BENCH_POD_READY_DELAY_MS ?? 50);
const pollerConcurrency = Number(process.env.BENCH_POLLER_CONCURRENCY ?? 16);
/** How readiness is observed: `status` polls every pending composition's status each 100 ms (as bench:rollout does), `list` pages through the composition list every 250 ms. */
const observe = process.env.BENCH_OBSERVE === 'status' ? 'status' : 'list';

const stack = await startBenchStack('burst-', {
  podReadyDelayMs,
  worker: false,
});

/** When each job message was sent, by body (a body names one step of one operation). */
const sentAt = new Map<string, number>();
const queueWaits: number[] = [];
const handlerMs: number[] = [];
const handlerErrors = new Map<string, number>();
let inFlight = 0;
let inFlightArea = 0;
let inFlightSince = performance.now();
const account = () => {
  const now = performance.now();
  inFlightArea += inFlight * (now - inFlightSince);
  inFlightSince = now;
};
// The API's calls and the worker's, each function's clients.
const { api, worker } = stack.functionClients;
const dynamo = meterDynamoDb([api.dynamodb, worker.dynamodb]);
const queue = meterQueue([api.sqs, worker.sqs], 'benchSqsMeter');
for (const sqs of [api.sqs, worker.sqs]) {
  (sqs.middlewareStack as unknown as { add: (m: unknown, o: unknown) => void }).add(
    (
      next: (args: { input: { MessageBody?: string } }) => Promise<unknown>,
      context: { commandName?: string },
    ) =>
      async (args: { input: { MessageBody?: string } }) => {
        if (context.commandName === 'SendMessageCommand' && args.input.MessageBody)
          sentAt.set(args.input.MessageBody, performance.now());
        return next(args);
      },
    { step: 'initialize', name: 'benchSentAt' },
  );
}
const poller = startPoller({
  sqs: worker.sqs,
  queueUrl: stack.resources.jobQueueUrl,
  concurrency: pollerConcurrency,
  async handle(body, receiveCount) {
    const started = performance.now();
    const sent = sentAt.get(body);
    if (sent !== undefined) queueWaits.push(started - sent);
    account();
    inFlight++;
    try {
      await stack.handle(body, receiveCount);
    } catch (error) {
      const what = String(error).slice(0, 120);
      handlerErrors.set(what, (handlerErrors.get(what) ?? 0) + 1);
      throw error;
    } finally {
      account();
      inFlight--;
      handlerMs.push(performance.now() - started);
    }
  },
});

const create = (i: number) => createComposition(stack.apiUrl, i, { name: `burst-${i}`, tag: `burst-${i}` });
const phase = (id: string) => phaseOf(stack.apiUrl, id);

/** user + system jiffies of a process, and of the whole machine (all cores, busy only). */
function processJiffies(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return Number(fields[11]) + Number(fields[12]);
}
function machineBusyJiffies(): number {
  const [, ...values] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number);
  return (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
}
/** DynamoDB Local's JVM: the java process serving on its port. */
function javaPid(port: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (cmdline[0]?.endsWith('java') && cmdline.includes('-port') && cmdline.includes(port))
        return Number(entry);
    } catch {}
  }
  throw new Error(`no java process serving port ${port}`);
}
const jvm = javaPid(new URL(stack.endpoints.dynamodb).port);
const ticksPerSecond = 100;

// Warm-up, as the rollout benchmark does.
const first = await create(0);
while ((await phase(first)) !== 'ready') await new Promise((r) => setTimeout(r, 20));
dynamo.reset();
queue.reset();
queueWaits.length = 0;
handlerMs.length = 0;
inFlightArea = 0;
inFlightSince = performance.now();

const cpuBefore = { node: process.cpuUsage(), java: processJiffies(jvm), machine: machineBusyJiffies() };
const burstStarted = performance.now();
const ids = await Promise.all(Array.from({ length: concurrent }, (_, i) => create(1000 + i)));
const createdMs = performance.now() - burstStarted;
const pending = new Set(ids);
while (pending.size > 0) {
  if (observe === 'status') {
    await Promise.all(
      [...pending].map(async (id) => {
        const current = await phase(id);
        if (current === 'ready') pending.delete(id);
        if (current === 'failed') throw new Error(`composition ${id} failed`);
      }),
    );
  } else {
    for (const composition of await listPhases(stack.apiUrl)) {
      if (composition.phase === 'ready') pending.delete(composition.id);
      if (composition.phase === 'failed' && pending.has(composition.id))
        throw new Error(`composition ${composition.id} failed`);
    }
  }
  if (pending.size) await new Promise((r) => setTimeout(r, observe === 'status' ? 100 : 250));
}
const wallSeconds = (performance.now() - burstStarted) / 1000;
account();
const nodeCpu = process.cpuUsage(cpuBefore.node);
const javaSeconds = (processJiffies(jvm) - cpuBefore.java) / ticksPerSecond;
const machineSeconds = (machineBusyJiffies() - cpuBefore.machine) / ticksPerSecond;
const nodeSeconds = (nodeCpu.user + nodeCpu.system) / 1e6;
const dynamoCounts = snapshot(dynamo);
const queueCounts = snapshot(queue);

/** Step timings from each composition's events: when each step started and finished. */
const stepMs = new Map<string, number[]>();
const acceptedToApply: number[] = [];
const totals: number[] = [];
for (const id of ids) {
  const { items } = await stack.stores.compositions.listEvents(id, { limit: 100, after: null });
  const events = [...items].reverse();
  const at = (e: CompositionEvent | undefined) => Date.parse(e?.at ?? '');
  const accepted = events.find((e) => e.type === EventType.Accepted);
  const started = events.filter((e) => e.type === EventType.StepStarted);
  const ready = events.find((e) => e.type === EventType.Ready);
  acceptedToApply.push(at(started[0]) - at(accepted));
  totals.push(at(ready) - at(accepted));
  for (const start of started) {
    const step = String(start.data.step);
    const finished = events.find(
      (e) => e.type === EventType.StepFinished && e.data.step === step && at(e) >= at(start),
    );
    if (!finished) continue;
    stepMs.set(step, [...(stepMs.get(step) ?? []), at(finished) - at(start)]);
  }
}

/**
 * DynamoDB Local on its own, after the burst and one request at a time: latency and JVM CPU of a
 * consistent GetItem and of a create transaction (composition, operation and event, as the API writes).
 */
async function dynamoLocalAlone(rounds = 200): Promise<Record<string, { ms: number; cpuMs: number }>> {
  const sample = (await stack.stores.compositions.get(ids[0] as string)) as Compositions.CompositionRecord;
  const operation = (await stack.stores.compositions.getOperation(
    sample.id,
    sample.latest_operation.id,
  )) as Operations.Operation;
  const measure = async (request: () => Promise<unknown>) => {
    const cpu = processJiffies(jvm);
    const started = performance.now();
    for (let i = 0; i < rounds; i++) await request();
    return {
      ms: (performance.now() - started) / rounds,
      cpuMs: ((processJiffies(jvm) - cpu) * 1000) / ticksPerSecond / rounds,
    };
  };
  return {
    'GetItem (consistent)': await measure(() => stack.stores.compositions.get(sample.id)),
    'TransactWriteItems (create: 4 items)': await measure(() => {
      const id = newId(IdPrefix.Composition);
      return stack.stores.compositions.create({
        namespace: {
          cluster: sample.cluster ?? 'local',
          namespace: sample.namespace,
          project: sample.project,
          baseline: sample.baseline,
        },
        composition: { ...sample, id },
        operation: { ...operation, id: newId(IdPrefix.Operation), composition_id: id },
        events: [{ ...eventSample, id: newId(IdPrefix.Event), composition_id: id }],
      });
    }),
  };
}
const eventSample = (await stack.stores.compositions.listEvents(ids[0] as string, { limit: 1, after: null }))
  .items[0] as CompositionEvent;
const alone = await dynamoLocalAlone();

await poller.stop();
await stack.stop();

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const ms = (value: number) => `${value.toFixed(0)} ms`;
const row = (name: string, values: number[]) =>
  `  ${name.padEnd(34)} p50 ${ms(quantile(values, 0.5)).padStart(9)}  p95 ${ms(quantile(values, 0.95)).padStart(9)}  mean ${ms(mean(values)).padStart(9)}  n ${values.length}`;

console.log(
  `\nBurst — ${concurrent} compositions created at once, pod-ready delay ${podReadyDelayMs} ms, poller ${pollerConcurrency} at a time, readiness observed by ${observe === 'status' ? 'polling each status every 100 ms' : 'listing every 250 ms'}\n`,
);
console.log(
  `all ready after ${wallSeconds.toFixed(1)} s (${(concurrent / wallSeconds).toFixed(1)} per second); the ${concurrent} creates were answered within ${(createdMs / 1000).toFixed(1)} s`,
);
console.log(
  `handlers in flight: mean ${(inFlightArea / (wallSeconds * 1000)).toFixed(1)} of ${pollerConcurrency}; ${handlerMs.length} messages handled`,
);
for (const [error, n] of handlerErrors) console.log(`  handler failed ${n}×: ${error}`);
console.log('\nPer composition (from its events) and per message:');
console.log(row('accepted → ready', totals));
console.log(row('accepted → apply started', acceptedToApply));
for (const [step, values] of stepMs) console.log(row(`step ${step}`, values));
console.log(row('message queue wait (sent → handled)', queueWaits));
console.log(row('message handler', handlerMs));

console.log(
  `\nCPU during the burst (${wallSeconds.toFixed(1)} s × 2 cores = ${(2 * wallSeconds).toFixed(0)} core-seconds):`,
);
console.log(
  `  this process (API, worker, cluster, fauxqs, load) ${nodeSeconds.toFixed(1)} s  (${((nodeSeconds / concurrent) * 1000).toFixed(0)} ms per composition)`,
);
console.log(
  `  DynamoDB Local (JVM)                              ${javaSeconds.toFixed(1)} s  (${((javaSeconds / concurrent) * 1000).toFixed(0)} ms per composition)`,
);
console.log(
  `  everything else on the machine                    ${(machineSeconds - nodeSeconds - javaSeconds).toFixed(1)} s`,
);

console.log('\nDynamoDB requests during the burst, by operation (API and worker):');
for (const [operation, c] of Object.entries(dynamoCounts.operations)) {
  console.log(
    `  ${operation.padEnd(20)} ${String(c.count).padStart(6)} requests  mean ${ms((c.sums.ms ?? 0) / c.count).padStart(8)}  total ${((c.sums.ms ?? 0) / 1000).toFixed(1)} s`,
  );
}
console.log('\nDynamoDB Local alone after the burst, one request at a time:');
for (const [what, m] of Object.entries(alone)) {
  console.log(
    `  ${what.padEnd(38)} ${m.ms.toFixed(1).padStart(6)} ms each, JVM CPU ${m.cpuMs.toFixed(1)} ms each`,
  );
}
console.log('\nSQS requests during the burst:');
for (const [operation, c] of Object.entries(queueCounts.operations)) {
  console.log(
    `  ${operation.padEnd(20)} ${String(c.count).padStart(6)} requests  mean ${ms((c.sums.ms ?? 0) / c.count).padStart(8)}`,
  );
}
console.log('\nDynamoDB writes whose condition failed (the write was lost), by call site:');
for (const [site, c] of Object.entries(dynamoCounts.sites).filter(([, c]) => c.sums.failed)) {
  console.log(`  ${String(c.sums.failed).padStart(5)} of ${c.count}  ${site}`);
}
console.log('\nSQS sends by call site:');
for (const [site, c] of Object.entries(queueCounts.sites).filter(([site]) => site.endsWith('SendMessage'))) {
  console.log(`  ${String(c.count).padStart(5)}×  ${site}`);
}
console.log('\nSlowest DynamoDB call sites (total time across the burst):');
for (const [site, c] of Object.entries(dynamoCounts.sites)
  .sort(([, a], [, b]) => (b.sums.ms ?? 0) - (a.sums.ms ?? 0))
  .slice(0, 12)) {
  console.log(
    `  ${((c.sums.ms ?? 0) / 1000).toFixed(1).padStart(6)} s  ${String(c.count).padStart(5)}×  ${site}`,
  );
}
