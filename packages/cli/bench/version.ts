/**
 * `npm run bench:cli`: how long `svc version` takes against the floor of any Node program,
 * `node -e 0`, measured side by side in alternating runs so machine noise hits both alike; medians.
 * By default the API URL points at a closed port (the CLI's own start plus a refused connection);
 * set SVC_API_URL to time it against a running API instead.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../scripts/build.ts';

const runs = Number(process.env.BENCH_RUNS ?? 21);
const launcher = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'svc.js');
const env = { ...process.env, SVC_API_URL: process.env.SVC_API_URL ?? 'http://127.0.0.1:9' };
const node = process.execPath;

await buildCli({ ifStale: true });

const cases: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  'svc version': [launcher, 'version'],
  'svc composition create --help': [launcher, 'composition', 'create', '--help'],
};

function time(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return elapsed;
}

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const args of Object.values(cases)) time(args); // warm the page cache and the compile cache
for (let run = 0; run < runs; run++) {
  for (const [name, args] of Object.entries(cases)) samples[name]?.push(time(args));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
/** docs/cli.md, Start-up time: agents call svc in loops, so its start is held to this. */
const targetRatio = 1.5;
const floor = median(samples['node -e 0'] ?? []);
console.log(`node ${process.version}, ${runs} alternating runs each, SVC_API_URL=${env.SVC_API_URL}`);
console.log('command'.padEnd(34), 'median ms'.padStart(10), 'min ms'.padStart(8), 'ratio'.padStart(7));
for (const [name, values] of Object.entries(samples)) {
  const m = median(values);
  console.log(
    name.padEnd(34),
    m.toFixed(1).padStart(10),
    Math.min(...values)
      .toFixed(1)
      .padStart(8),
    `${(m / floor).toFixed(2)}x`.padStart(7),
  );
}
const ratio = median(samples['svc version'] ?? []) / floor;
console.log(
  `svc version: ${ratio.toFixed(2)}x node -e 0, target at most ${targetRatio.toFixed(2)}x: ${ratio <= targetRatio ? 'met' : 'NOT met'}`,
);
