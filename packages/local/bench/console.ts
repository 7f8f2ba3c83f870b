/**
 * `npm run bench:console`: how fast the console answers a person with 200 compositions on the
 * list — the full page, the fragment its live refresh fetches, and one composition's page — next
 * to the JSON list route over the same 200 (the floor: the same use case, no HTML). One client,
 * requests one after another, alternating rounds. Target: the list page's median under 100 ms;
 * the page minus the floor is what the console itself costs.
 */
import { maxPageSize } from '@svc/core';
import { createComposition } from './observe.ts';
import { startBenchStack } from './stack.ts';

const compositions = Number(process.env.BENCH_COMPOSITIONS ?? maxPageSize);
const samples = Number(process.env.BENCH_SAMPLES ?? 40);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const targetMs = 100;

// No worker: the compositions stay as created, so nothing else competes for the two cores.
const stack = await startBenchStack('bench-console-', {
  worker: false,
});

const ids: string[] = [];
const createOne = async (n: number) => {
  ids.push(
    await createComposition(stack.apiUrl, n, { name: `bench-${n}`, tag: `${n}.0.0`, component: 'service-b' }),
  );
};
for (let n = 0; n < compositions; n += 8) {
  await Promise.all(Array.from({ length: Math.min(8, compositions - n) }, (_, k) => createOne(n + k)));
}

const targets = {
  'JSON list (floor): GET /v1/compositions?limit=200': `/v1/compositions?limit=${maxPageSize}`,
  'list page: GET /console/compositions': '/console/compositions',
  'live refresh: GET /console/compositions/rows': '/console/compositions/rows',
  'one composition: GET /console/compositions/{id}': `/console/compositions/${ids[0]}`,
} as const;

const page = await (await fetch(`${stack.apiUrl}${targets['list page: GET /console/compositions']}`)).text();
const rows = page.match(/<tr id="row-/g)?.length ?? 0;
if (rows !== compositions) throw new Error(`the list page shows ${rows} rows, not ${compositions}`);

async function timeOnce(path: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}${path}`);
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path}: ${response.status}`);
  return performance.now() - started;
}

const timings: Record<string, number[]> = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
for (const path of Object.values(targets)) for (let n = 0; n < 5; n++) await timeOnce(path);
for (let round = 0; round < rounds; round++) {
  for (const [name, path] of Object.entries(targets)) {
    for (let n = 0; n < samples; n++) timings[name]?.push(await timeOnce(path));
  }
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(9);
console.log(
  `\nConsole benchmark — ${compositions} compositions, ${rounds} rounds × ${samples} sequential requests per page, one client\n`,
);
console.log(`${'page'.padEnd(52)}      p50      p95      max   bytes`);
for (const [name, path] of Object.entries(targets)) {
  const values = timings[name] ?? [];
  const bytes = (await (await fetch(`${stack.apiUrl}${path}`)).arrayBuffer()).byteLength;
  console.log(
    `${name.padEnd(52)}${ms(percentile(values, 50))}${ms(percentile(values, 95))}${ms(Math.max(...values))}  ${String(bytes).padStart(6)}`,
  );
}
const listP50 = percentile(timings['list page: GET /console/compositions'] ?? [], 50);
const floorP50 = percentile(timings['JSON list (floor): GET /v1/compositions?limit=200'] ?? [], 50);
const met = listP50 < targetMs;
console.log(
  `\nlist page p50 ${listP50.toFixed(1)} ms (target < ${targetMs} ms): ${met ? 'OK' : 'ABOVE TARGET'}`,
);
console.log(`the console's own share (list page p50 − floor p50): ${(listP50 - floorP50).toFixed(1)} ms`);

await stack.stop();
process.exit(met ? 0 : 1);
