/**
 * Sums a V8 CPU profile (`node --cpu-prof`) by where the code lives, so a profile of the whole
 * local stack in one process says which part used the CPU: `node packages/local/bench/profile-summary.ts <file>`.
 * Self time only (a function's own samples, not its callees'), plus the heaviest functions.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const categories: [string, RegExp][] = [
  ['AWS SDK (@aws-sdk, @smithy)', /node_modules\/(@aws-sdk|@smithy|@aws-crypto)\//],
  ['fauxqs (SQS/SNS emulator)', /node_modules\/fauxqs\//],
  [
    'Kubernetes client (@kubernetes/client-node and its HTTP)',
    /node_modules\/(@kubernetes|node-fetch|form-data|ws)\//,
  ],
  ['local cluster (packages/local-cluster)', /packages\/local-cluster\//],
  ['API (packages/api, hono)', /packages\/api\/|node_modules\/hono\//],
  ['worker and core (packages/worker, packages/core)', /packages\/(worker|core)\//],
  ['AWS adapters (packages/aws)', /packages\/aws\//],
  ['kube adapter (packages/kube)', /packages\/kube\//],
  ['valibot', /node_modules\/valibot\//],
  ['undici (fetch)', /undici|node:internal\/deps\/undici/],
  ['other node_modules', /node_modules\//],
  ['Node internals (http, streams, timers)', /^node:/],
  ['bench', /packages\/local\/bench\//],
];

function categoryOf(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'garbage collector';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8 / native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  return categories.find(([, pattern]) => pattern.test(url))?.[0] ?? 'other';
}

const path = process.argv[2];
if (!path) throw new Error('usage: profile-summary.ts <file.cpuprofile>');
const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const byCategory = new Map<string, number>();
const byFunction = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const node = byId.get(id);
  const micros = profile.timeDeltas[index] ?? 0;
  if (!node) return;
  total += micros;
  const category = categoryOf(node);
  byCategory.set(category, (byCategory.get(category) ?? 0) + micros);
  const { functionName, url, lineNumber } = node.callFrame;
  const where = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${lineNumber + 1}`;
  byFunction.set(where, (byFunction.get(where) ?? 0) + micros);
});

const busy = total - (byCategory.get('idle') ?? 0);
console.log(`\n${path}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s not idle\n`);
console.log('Self time by part (share of non-idle time):');
for (const [category, micros] of [...byCategory].sort(([, a], [, b]) => b - a)) {
  if (category === 'idle') continue;
  console.log(
    `  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${(micros / 1e6).toFixed(1).padStart(6)} s  ${category}`,
  );
}
console.log('\nHeaviest functions (self time):');
for (const [where, micros] of [...byFunction].sort(([, a], [, b]) => b - a).slice(0, 25)) {
  if (where.startsWith('(idle)')) continue;
  console.log(`  ${((100 * micros) / busy).toFixed(1).padStart(5)} %  ${where}`);
}
