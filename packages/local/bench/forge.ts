/**
 * `npm run bench:forge`: what pull-request previews cost against GitHub's limits, counted where the
 * app's requests arrive (the local forge's request log). FORGE_PREVIEWS (10) pull requests labelled
 * `preview` on demo-org/service-b go through: opened → ready; pushed to → ready again; a
 * reconciliation with nothing changed; a push whose webhooks were lost → the reconciliation finds
 * it → ready; closed → stopped. Per preview and phase: reads the hourly budget counts (every answer
 * but a 304), free 304s, and writes (what GitHub's content-creation limit counts).
 *
 * The schedules are stopped so that only the phase's own work is counted; the reconciliation is
 * run by hand, as its schedule would.
 */
import { loadavg } from 'node:os';
import type { Forge } from '@svc/core';
import { sweeps } from '@svc/worker';
import { startBenchStack } from './stack.ts';

const previews = Number(process.env.FORGE_PREVIEWS ?? 10);
const repository = 'demo-org/service-b';

const started = new Date();
const stack = await startBenchStack('forge-bench-', {
  podReadyDelayMs: 50,
});
await stack.scheduler.stop();
if (!stack.forge) throw new Error('the stack started without its forge');
const forge = stack.forge;
const reconcile = () => sweeps(stack.workerDeps)['forge-reconcile']();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function previewsNow(): Promise<Forge.PreviewView[]> {
  const response = await fetch(`${stack.apiUrl}/v1/forge/previews?project=demo&limit=200`);
  return ((await response.json()) as { items: Forge.PreviewView[] }).items;
}

/** Until every preview is in `state` (at the pull request's head commit, for `ready`). */
async function until(state: Forge.PreviewState): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const all = await previewsNow();
    const done = all.filter(
      (p) => p.state === state && (state !== 'ready' || p.deployed_sha === p.pull_request.head_sha),
    );
    if (all.length === previews && done.length === previews) return;
    if (Date.now() > deadline)
      throw new Error(`previews not ${state}: ${JSON.stringify(all.map((p) => p.state))}`);
    await sleep(200);
  }
}

interface Phase {
  name: string;
  counts: Record<string, number>;
}

const phases: Phase[] = [];
let before = forge.requests();

/**
 * Until the forge has seen no request for three seconds: a preview reads ready before its comment and
 * check run are written, and those writes belong to the phase that caused them.
 */
async function quiet(): Promise<Record<string, number>> {
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  let last = forge.requests();
  for (;;) {
    await sleep(3000);
    const now = forge.requests();
    if (total(now) === total(last)) return now;
    last = now;
  }
}

/** The requests the forge answered since the last phase ended, once it is quiet. */
async function endPhase(name: string): Promise<void> {
  const now = await quiet();
  const counts = Object.fromEntries(
    Object.entries(now)
      .map(([key, count]) => [key, count - (before[key] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );
  phases.push({ name, counts });
  before = now;
}

const numbers: number[] = [];
for (let i = 0; i < previews; i++) {
  const { pullRequest } = await forge.open({ repository, head: `bench-${i}`, labels: ['preview'] });
  if (!pullRequest) throw new Error(`the forge did not open a pull request on ${repository}`);
  numbers.push(pullRequest.number);
}
await until('ready');
await endPhase('opened, labelled → ready');

for (const number of numbers) await forge.push({ repository, number });
await until('ready');
await endPhase('pushed to → ready');

await reconcile();
await endPhase('a reconciliation, nothing changed');

forge.setWebhookUrl(null);
for (const number of numbers) await forge.push({ repository, number });
forge.setWebhookUrl(`${stack.apiUrl}/webhooks/forge`);
await reconcile();
await until('ready');
await endPhase('pushed to with the webhooks lost → the reconciliation → ready');

for (const number of numbers) await forge.close({ repository, number });
await until('stopped');
await endPhase('closed → stopped');

/** The app's own calls (its JWT: installations, tokens, hook deliveries) draw on the app's budget, not an installation's. */
const appLevel = (key: string) => / \/app\//.test(key);
const kinds = (counts: Record<string, number>) => {
  const sum = (keep: (key: string) => boolean) =>
    Object.entries(counts)
      .filter(([key]) => keep(key))
      .reduce((total, [, count]) => total + count, 0);
  return {
    charged: sum((key) => !appLevel(key) && !key.endsWith(' 304')),
    notModified: sum((key) => !appLevel(key) && key.endsWith(' 304')),
    writes: sum((key) => !appLevel(key) && /^(POST|PATCH|PUT|DELETE) /.test(key)),
    app: sum(appLevel),
  };
};
const per = (value: number) => (value / previews).toFixed(1);
const lines = [
  `bench:forge — ${previews} pull-request previews on ${repository}, run ${started.toISOString()}, load average (1 min) ${(loadavg()[0] ?? 0).toFixed(1)}`,
  '',
  '| phase | installation: charged requests per preview | 304s per preview | writes per preview (content-creating) | app (JWT) requests in all |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...phases.map((phase) => {
    const k = kinds(phase.counts);
    return `| ${phase.name} | ${per(k.charged)} | ${per(k.notModified)} | ${per(k.writes)} | ${k.app} |`;
  }),
  '',
  'Requests by route, all phases:',
  '',
  '| request | count |',
  '| --- | ---: |',
  ...Object.entries(forge.requests()).map(([key, count]) => `| \`${key}\` | ${count} |`),
];
console.log(lines.join('\n'));

await stack.stop();
