/**
 * `npm run bench:sleep`: sleep and wake on the local stack (docs/sleep.md), its pods ready
 * BENCH_POD_READY_DELAY_MS (1000) after they start, previews on the demo's `staging-sleepy` with
 * `after` BENCH_SLEEP_AFTER_S (5, the catalog's minimum).
 *
 * (a) Wake latency: BENCH_COMPOSITIONS (10) previews overriding service-b are left to sleep; then
 *     the first request through each preview URL is timed, one preview at a time. Printed: p50,
 *     p95, max and p95 / pod delay (the floor: no answer comes before the fork's pod is ready).
 *     Target p95 ≤ 3 s.
 * (b) Wake-ups under load: BENCH_WAKEUPS (1,000, the issue's figure) wake-ups, shared among
 *     BENCH_WAKE_COMPOSITIONS (50) previews overriding service-b and service-d (which consumes
 *     `demo-events`) with message isolation, all cycling at once. Each cycle waits until both forks
 *     sleep, then at the same moment publishes one message routed to the preview (it lands on its
 *     isolated queue) and sends BENCH_REQUESTS_PER_WAKE (3) requests through its URL. The bench
 *     consumes every isolated queue all along, as the woken consumer would (the local pods do not
 *     read queues), and waits for the cycle's message before the next one. Counted: requests answered by the forks; answered with the interceptor's
 *     bounded-hold 503 (`preview_waking` with `Retry-After`, which a client retries: retried once
 *     here and counted as such); dropped (a connection error, any other failure, or the baseline
 *     answering for a fork); messages published vs received.
 *
 * BENCH_CONCURRENCY (4): creates at a time.
 */
import { loadavg } from 'node:os';
import { ListTopicsCommand, PublishCommand } from '@aws-sdk/client-sns';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import {
  applySleepAfter,
  createPreview,
  forkReplicas,
  type Outcome,
  type Preview,
  percentile,
  pool,
  requestPreview,
  sleepyBaseline,
  untilAsleep,
} from './previews.ts';
import { startBenchStack } from './stack.ts';

const podReadyDelayMs = Number(process.env.BENCH_POD_READY_DELAY_MS ?? 1000);
const afterSeconds = Number(process.env.BENCH_SLEEP_AFTER_S ?? 5);
const latencyCount = Number(process.env.BENCH_COMPOSITIONS ?? 10);
const wakeups = Number(process.env.BENCH_WAKEUPS ?? 1000);
const wakeCount = Number(process.env.BENCH_WAKE_COMPOSITIONS ?? 50);
const requestsPerWake = Number(process.env.BENCH_REQUESTS_PER_WAKE ?? 3);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const sleepTimeoutMs = afterSeconds * 1000 + 30_000;

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const loadBefore = load();
const started = performance.now();
const stack = await startBenchStack('sleep-bench-', { podReadyDelayMs });
await applySleepAfter(stack, afterSeconds);
const ms = (value: number) => `${Math.round(value)} ms`;

// ---- (a) wake latency -----------------------------------------------------------------------

const sleepers = await pool(
  Array.from({ length: latencyCount }, (_, i) => i),
  concurrency,
  (i) => createPreview(stack, { name: `wake-${i}`, baseline: sleepyBaseline, components: ['service-b'] }),
);
await Promise.all(sleepers.map((p) => untilAsleep(stack, p, sleepTimeoutMs)));
const firstAnswers: Outcome[] = [];
for (const preview of sleepers) firstAnswers.push(await requestPreview(stack, preview));
const latencies = firstAnswers.map((o) => o.ms);
const p95 = percentile(latencies, 95);
const notByFork = firstAnswers.filter((o) => o.kind !== 'fork');

console.log(
  `\nbench:sleep — pods ready after ${podReadyDelayMs} ms, after ${afterSeconds}s; load average before ${loadBefore}\n`,
);
console.log(
  `(a) The first request to a sleeping preview, ${latencyCount} previews (service-b overridden), one at a time:`,
);
console.log(
  `    p50 ${ms(percentile(latencies, 50))}, p95 ${ms(p95)}, max ${ms(Math.max(...latencies))};` +
    ` p95 / pod delay ${(p95 / podReadyDelayMs).toFixed(2)}× (target p95 ≤ 3000 ms: ${p95 <= 3000 ? 'met' : 'missed'});` +
    ` ${latencyCount - notByFork.length} of ${latencyCount} answered by the fork${notByFork.length ? ` (others: ${notByFork.map((o) => `${o.kind} ${o.detail}`).join('; ')})` : ''}`,
);

// ---- (b) wake-ups under concurrent requests and messages ------------------------------------

const { Topics = [] } = await stack.clients.sns.send(new ListTopicsCommand({}));
const topicArn = Topics.find((t) => t.TopicArn?.endsWith(':demo-events'))?.TopicArn;
if (!topicArn) throw new Error('the demo-events topic is missing');

const wakeStarted = performance.now();
const cyclers = await pool(
  Array.from({ length: wakeCount }, (_, i) => i),
  concurrency,
  (i) =>
    createPreview(stack, {
      name: `cycle-${i}`,
      baseline: sleepyBaseline,
      components: ['service-b', 'service-d'],
      messageIsolation: true,
    }),
);
const createdSeconds = (performance.now() - wakeStarted) / 1000;

const tally = {
  wakeups: 0,
  notWoken: 0,
  fork: 0,
  waking: 0,
  wakingThenFork: 0,
  dropped: 0,
  published: 0,
  /** Messages not received within 30 s of their wake-up (counted as received if they came later). */
  late: 0,
  duplicates: 0,
};
/** Previews that stayed awake past `after` + 30 s: they stop cycling, named in the report. */
const stuck: string[] = [];
const dropped: string[] = [];
const wakeMs: number[] = [];

const receivedBodies = new Set<string>();
let consuming = true;

/** The woken consumer's part: receives (and deletes) every message of the preview's isolated queue. */
async function consume(queueUrl: string): Promise<void> {
  while (consuming) {
    const { Messages = [] } = await stack.clients.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    for (const message of Messages) {
      if (receivedBodies.has(message.Body ?? '')) tally.duplicates++;
      receivedBodies.add(message.Body ?? '');
      await stack.clients.sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }),
      );
    }
  }
}

async function receivedWithin(body: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!receivedBodies.has(body) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return receivedBodies.has(body);
}

async function answered(preview: Preview): Promise<void> {
  const outcome = await requestPreview(stack, preview);
  wakeMs.push(outcome.ms);
  if (outcome.kind === 'waking') {
    tally.waking++;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    if ((await requestPreview(stack, preview)).kind === 'fork') tally.wakingThenFork++;
    return;
  }
  tally[outcome.kind]++;
  if (outcome.kind === 'dropped') dropped.push(outcome.detail);
}

async function cycle(preview: Preview): Promise<void> {
  while (tally.wakeups < wakeups) {
    const slept = await untilAsleep(stack, preview, sleepTimeoutMs).then(
      () => true,
      () => false,
    );
    if (!slept) {
      stuck.push(`${preview.id} (forks at ${(await forkReplicas(stack, preview)).join(', ')} replicas)`);
      return;
    }
    if (tally.wakeups >= wakeups) return;
    const n = ++tally.wakeups;
    const body = `wake ${n} of ${preview.id}`;
    const publish = stack.clients.sns
      .send(
        new PublishCommand({
          TopicArn: topicArn,
          Message: body,
          MessageAttributes: { preview_route: { DataType: 'String', StringValue: preview.id } },
        }),
      )
      .then(() => tally.published++);
    await Promise.all([publish, ...Array.from({ length: requestsPerWake }, () => answered(preview))]);
    if ((await forkReplicas(stack, preview)).some((r) => r === 0)) tally.notWoken++;
    if (!(await receivedWithin(body, 30_000))) tally.late++;
  }
}

const consumers = cyclers.flatMap((p) => p.queueUrls.map(consume));
await Promise.all(cyclers.map(cycle));
// Whatever is still on its way has 10 s more to arrive before the count.
await new Promise((resolve) => setTimeout(resolve, tally.late > 0 ? 10_000 : 0));
consuming = false;
await Promise.all(consumers);
const wakeSeconds = (performance.now() - wakeStarted) / 1000 - createdSeconds;
await stack.stop();

const requests = tally.wakeups * requestsPerWake;
console.log(
  `\n(b) ${tally.wakeups} wake-ups of ${wakeCount} previews (service-b and service-d overridden, message isolation), all cycling at once,` +
    ` each by ${requestsPerWake} requests and 1 message at the same moment; ${wakeSeconds.toFixed(0)} s after ${createdSeconds.toFixed(0)} s of creates:`,
);
console.log(
  `    requests: ${requests} sent, ${tally.fork} answered by the forks, ${tally.waking} answered 503 preview_waking` +
    ` (retried after Retry-After: ${tally.wakingThenFork} then answered by the forks), ${tally.dropped} dropped` +
    `${dropped.length ? ` (${[...new Set(dropped)].slice(0, 5).join('; ')})` : ''};` +
    ` latency p50 ${ms(percentile(wakeMs, 50))}, p95 ${ms(percentile(wakeMs, 95))}, max ${ms(Math.max(...wakeMs))}`,
);
console.log(
  `    messages: ${tally.published} published, ${receivedBodies.size} received from the isolated queues, ${tally.published - receivedBodies.size} lost` +
    ` (${tally.late} later than 30 s, ${tally.duplicates} received twice); ${tally.notWoken} wake-ups left a fork at 0 replicas after the answers`,
);
if (stuck.length > 0) console.log(`    did not sleep again within ${sleepTimeoutMs} ms: ${stuck.join('; ')}`);
console.log(`\nTotal ${((performance.now() - started) / 1000).toFixed(0)} s; load average after ${load()}`);
