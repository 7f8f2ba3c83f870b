/**
 * `npm run bench:rollout`: how long the control plane itself takes to roll a composition out.
 * Create → ready time minus the cluster's pod-ready delay, sequentially over 50 compositions
 * (p50/p95), then 200 compositions created at once and the time until all are ready, observed
 * through the composition list every 250 ms (observe.ts).
 */

import { createComposition, listPhases, phaseOf } from './observe.ts';
import { startBenchStack } from './stack.ts';

const sequential = Number(process.env.BENCH_SEQUENTIAL ?? 50);
const concurrent = Number(process.env.BENCH_CONCURRENT ?? 200);
const podReadyDelayMs = Number(process.env.BENCH_POD_READY_DELAY_MS ?? 50);

const stack = await startBenchStack('bench-', {
  podReadyDelayMs,
});

const create = (i: number) => createComposition(stack.apiUrl, i, { name: `bench-${i}`, tag: `bench-${i}` });
const phase = (id: string) => phaseOf(stack.apiUrl, id);

async function serverSideMs(id: string): Promise<number> {
  const events = (await (await fetch(`${stack.apiUrl}/v1/compositions/${id}/events?limit=100`)).json()) as {
    items: { type: string; at: string }[];
  };
  const at = (type: string) => Date.parse(events.items.find((e) => e.type === type)?.at ?? '');
  return at('ready') - at('accepted');
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};

await create(0).then(async (id) => {
  while ((await phase(id)) !== 'ready') await new Promise((r) => setTimeout(r, 20));
});

const clientOverhead: number[] = [];
const serverOverhead: number[] = [];
for (let i = 0; i < sequential; i++) {
  const started = performance.now();
  const id = await create(i);
  for (;;) {
    const current = await phase(id);
    if (current === 'ready') break;
    if (current === 'failed') throw new Error(`composition ${id} failed`);
    await new Promise((r) => setTimeout(r, 5));
  }
  clientOverhead.push(performance.now() - started - podReadyDelayMs);
  serverOverhead.push((await serverSideMs(id)) - podReadyDelayMs);
  if (process.env.BENCH_TRACE && (clientOverhead.at(-1) ?? 0) > 600) {
    const events = (await (await fetch(`${stack.apiUrl}/v1/compositions/${id}/events?limit=100`)).json()) as {
      items: { type: string; at: string; message: string }[];
    };
    const items = events.items.reverse();
    const t0 = Date.parse(items[0]?.at ?? '');
    console.log(`slow ${id}:`, items.map((e) => `+${Date.parse(e.at) - t0} ${e.message}`).join(' | '));
  }
}

const burstStarted = performance.now();
const ids = await Promise.all(Array.from({ length: concurrent }, (_, i) => create(1000 + i)));
const pending = new Set(ids);
while (pending.size > 0) {
  for (const composition of await listPhases(stack.apiUrl)) {
    if (composition.phase === 'ready') pending.delete(composition.id);
    if (composition.phase === 'failed' && pending.has(composition.id))
      throw new Error(`composition ${composition.id} failed`);
  }
  if (pending.size) await new Promise((r) => setTimeout(r, 250));
}
const burstSeconds = (performance.now() - burstStarted) / 1000;

const fmt = (ms: number) => `${ms.toFixed(0).padStart(5)} ms`;
console.log(
  `\nRollout benchmark — pod-ready delay ${podReadyDelayMs} ms, one overridden component per composition\n`,
);
console.log(`create → ready minus pod-ready delay, ${sequential} compositions one after another:`);
console.log(
  `  client (POST to status ready)  p50 ${fmt(quantile(clientOverhead, 0.5))}   p95 ${fmt(quantile(clientOverhead, 0.95))}`,
);
console.log(
  `  server (accepted → ready event) p50 ${fmt(quantile(serverOverhead, 0.5))}   p95 ${fmt(quantile(serverOverhead, 0.95))}`,
);
const p50 = quantile(clientOverhead, 0.5);
console.log(`  target p50 ≤ 300 ms: ${p50 <= 300 ? 'OK' : 'ABOVE TARGET'}`);
console.log(
  `\n${concurrent} compositions created at once: all ready after ${burstSeconds.toFixed(1)} s (${(concurrent / burstSeconds).toFixed(1)} per second)`,
);

await stack.stop();
