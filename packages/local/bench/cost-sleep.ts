/**
 * `npm run bench:cost-sleep`: override pod-hours of a working day of previews, with and without
 * sleep, measured on the local stack with the day compressed into BENCH_DAY_SECONDS (240: a
 * 24-hour day in 4 minutes, 360 times faster).
 *
 * The day is `trace` below: previews created through a working day, each looked at a few times,
 * some destroyed when their work merged, the others living on (a pull request's preview, TTL 24 h)
 * to the end of the day measured, 08:00 to 08:00 the next morning. A look is someone opening the
 * preview: three requests through its URL, at the look and 5 and 10 minutes after. Every preview
 * of the trace is created twice at once, overriding service-b: on the demo's `staging` (never
 * sleeps) and on `staging-sleepy` with `after` 30 minutes of the trace (scaled with the day: 5 s
 * at the default). Time on the trace's clock, `after` and the pods' start (30 s: 83 ms) shrink
 * together; the API, worker and cluster run at their own speed, so a rollout's few seconds count
 * as many trace minutes, alike for both.
 *
 * Measured, not computed: every BENCH_SAMPLE_MS (250) the forks' Deployments are listed from the
 * local cluster and each one's replicas times the time since the last sample is added to its side;
 * pod-hours are that sum on the trace's clock. Target: at least 70 % fewer with sleep.
 */
import { loadavg } from 'node:os';
import { Cluster } from '@svc/core';
import {
  applySleepAfter,
  createPreview,
  destroyPreview,
  type Outcome,
  requestPreview,
  sleepyBaseline,
} from './previews.ts';
import { startBenchStack } from './stack.ts';

interface TracePreview {
  /** Trace clock, HH:MM from 08:00 on; 24:00 and later is the next morning. */
  created: string;
  looks: string[];
  /** Destroyed when its work merged; null: still alive at the end of the day measured. */
  destroyed: string | null;
}

/** A team's working day: 16 previews, each looked at one to three times. */
const trace: TracePreview[] = [
  { created: '09:10', looks: ['09:25', '11:40', '14:05'], destroyed: '17:30' },
  { created: '09:35', looks: ['09:50', '10:30'], destroyed: null },
  { created: '10:00', looks: ['10:15', '13:20', '16:45'], destroyed: null },
  { created: '10:20', looks: ['10:40'], destroyed: '12:00' },
  { created: '10:45', looks: ['11:00', '11:50', '15:30'], destroyed: null },
  { created: '11:15', looks: ['11:30', '14:00'], destroyed: '18:00' },
  { created: '11:40', looks: ['12:00', '16:10', '17:45'], destroyed: null },
  { created: '13:05', looks: ['13:20', '13:55'], destroyed: '16:00' },
  { created: '13:30', looks: ['13:45', '15:15', '17:00'], destroyed: null },
  { created: '14:10', looks: ['14:25', '16:30'], destroyed: null },
  { created: '14:40', looks: ['15:00', '15:40', '18:20'], destroyed: null },
  { created: '15:20', looks: ['15:35', '17:10'], destroyed: null },
  { created: '16:00', looks: ['16:15', '16:50', '18:30'], destroyed: null },
  { created: '16:45', looks: ['17:00', '17:40'], destroyed: null },
  { created: '17:15', looks: ['17:30', '18:10'], destroyed: null },
  { created: '18:00', looks: ['18:15'], destroyed: null },
];
const dayStartMinutes = 8 * 60;
const dayMinutes = 24 * 60;
const traceAfterMinutes = 30;
const lookRequestsAtMinutes = [0, 5, 10];
const realPodReadySeconds = 30;

const daySeconds = Number(process.env.BENCH_DAY_SECONDS ?? 240);
const sampleMs = Number(process.env.BENCH_SAMPLE_MS ?? 250);
/** Trace seconds per real second. */
const speed = (dayMinutes * 60) / daySeconds;
const afterSeconds = Math.round((traceAfterMinutes * 60) / speed);
if (afterSeconds < 5)
  throw new Error(
    `BENCH_DAY_SECONDS ${daySeconds} makes after ${afterSeconds} s; the catalog's minimum is 5 s`,
  );

const minutesOf = (clock: string) => {
  const [h, m] = clock.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0) - dayStartMinutes;
};
/** Real milliseconds from the start of the run to a trace minute. */
const realMs = (traceMinute: number) => (traceMinute * 60 * 1000) / speed;

const loadBefore = loadavg()
  .map((l) => l.toFixed(1))
  .join(' ');
const stack = await startBenchStack('cost-sleep-', {
  podReadyDelayMs: Math.max(1, Math.round((realPodReadySeconds * 1000) / speed)),
});
await applySleepAfter(stack, afterSeconds);

/** The label every object of a composition carries, its id the value. */
const [compositionLabel = ''] = Cluster.compositionSelector('id').split('=');

type Side = 'staging' | 'staging-sleepy';
const sides: Side[] = ['staging', sleepyBaseline];
const sideOf = new Map<string, Side>();
const podSeconds: Record<Side, number> = { staging: 0, 'staging-sleepy': 0 };
const outcomes: Record<Side, Outcome[]> = { staging: [], 'staging-sleepy': [] };

const started = performance.now();
const at = (traceMinute: number) =>
  new Promise((resolve) =>
    setTimeout(resolve, Math.max(0, realMs(traceMinute) - (performance.now() - started))),
  );

let sampling = true;
async function sample(): Promise<void> {
  let last = performance.now();
  while (sampling) {
    await new Promise((resolve) => setTimeout(resolve, sampleMs));
    const deployments = await stack.cluster.listDeployments('staging', compositionLabel);
    const now = performance.now();
    const traceSeconds = ((now - last) / 1000) * speed;
    last = now;
    for (const d of deployments) {
      const side = sideOf.get(d.metadata.labels?.[compositionLabel] ?? '');
      if (side) podSeconds[side] += (d.spec.replicas ?? 1) * traceSeconds;
    }
  }
}

const alive = new Set<string>();
async function live(entry: TracePreview, index: number, side: Side): Promise<void> {
  await at(minutesOf(entry.created));
  const name = `day-${index}-${side === 'staging' ? 'always' : 'sleeps'}`;
  const preview = createPreview(stack, {
    name,
    baseline: side,
    components: ['service-b'],
    accepted: (id) => {
      sideOf.set(id, side);
      alive.add(id);
    },
  });
  const end = entry.destroyed === null ? dayMinutes : minutesOf(entry.destroyed);
  await Promise.all(
    entry.looks
      .flatMap((look) => lookRequestsAtMinutes.map((offset) => minutesOf(look) + offset))
      .filter((minute) => minute < end)
      .map(async (minute) => {
        await at(minute);
        outcomes[side].push(await requestPreview(stack, await preview));
      }),
  );
  await at(end);
  const { id } = await preview;
  if (entry.destroyed !== null) {
    await destroyPreview(stack, id);
    alive.delete(id);
  }
}

const sampler = sample();
await Promise.all(trace.flatMap((entry, i) => sides.map((side) => live(entry, i, side))));
await at(dayMinutes);
sampling = false;
await sampler;
const wallSeconds = (performance.now() - started) / 1000;
await Promise.all([...alive].map((id) => destroyPreview(stack, id)));
await stack.stop();

const hours = (side: Side) => podSeconds[side] / 3600;
const fewer = 1 - hours(sleepyBaseline) / hours('staging');
const answered = (side: Side) => {
  const all = outcomes[side];
  const by = (kind: Outcome['kind']) => all.filter((o) => o.kind === kind).length;
  return `${all.length} requests: ${by('fork')} answered by the fork, ${by('waking')} 503 preview_waking, ${by('dropped')} dropped`;
};
console.log(
  `\nbench:cost-sleep — ${trace.length} previews of a working day (08:00 to 08:00), ${trace.reduce((n, e) => n + e.looks.length, 0)} looks;` +
    ` the day in ${daySeconds} s (×${speed}), after ${traceAfterMinutes} min (${afterSeconds} s), pods ready in ${realPodReadySeconds} s,` +
    ` sampled every ${sampleMs} ms (${((sampleMs / 1000) * speed) / 60} trace min); ran ${wallSeconds.toFixed(0)} s; load average before ${loadBefore}, after ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
);
console.log('| override pod-hours in the day | without sleep (staging) | with sleep (staging-sleepy) |');
console.log('| --- | ---: | ---: |');
console.log(`| measured | ${hours('staging').toFixed(1)} | ${hours(sleepyBaseline).toFixed(1)} |`);
console.log(
  `\nWith sleep: ${(fewer * 100).toFixed(0)} % fewer override pod-hours (target ≥ 70 %: ${fewer >= 0.7 ? 'met' : 'missed'}).`,
);
console.log(`Looks without sleep: ${answered('staging')}; with sleep: ${answered(sleepyBaseline)}.`);
