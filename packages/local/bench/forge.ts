/**
 * `npm run bench:forge`: what pull-request previews cost against GitHub's limits, counted where the
 * app's requests arrive (the local forge's request log). FORGE_PREVIEWS (10) pull requests labelled
 * `preview` on demo-org/service-b go through: opened → ready; pushed to → ready again; a
 * reconciliation with nothing changed; a push whose webhooks were lost → the reconciliation finds
 * it → ready; closed → stopped. Per preview and phase: reads the hourly budget counts (every answer
 * but a 304), free 304s, and writes (what GitHub's content-creation limit counts).
 *
 * Then the writes of one preview's life (opened with its build → ready, a push → ready, closed) in
 * each feedback mode (comment, deployment, both), for a pull request of its own and for a change of
 * two and of three pull requests (demo-org/service-a, -b, -c grouped by branch; the push to one of
 * them), FORGE_COPIES (3) of each side by side, per pull-request preview or per change.
 *
 * The schedules are stopped so that only the phase's own work is counted; the reconciliation is
 * run by hand, as its schedule would.
 */
import { loadavg } from 'node:os';
import { Forge } from '@svc/core';
import { sweeps } from '@svc/worker';
import { ciImage } from '../src/forge.ts';
import { startBenchStack } from './stack.ts';

const previews = Number(process.env.FORGE_PREVIEWS ?? 10);
const copies = Number(process.env.FORGE_COPIES ?? 3);
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
  const deadline = Date.now() + 90_000;
  let last = forge.requests();
  for (;;) {
    await sleep(3000);
    const now = forge.requests();
    if (total(now) === total(last)) return now;
    if (Date.now() > deadline) {
      const still = Object.keys(now).filter((key) => now[key] !== last[key]);
      throw new Error(`the forge is still asked after 90 s: ${still.join(', ')}`);
    }
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
console.error('opened → ready');

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
/** A pull request of the lives below. */
interface Opened {
  repository: string;
  number: number;
  head: string;
}

const componentOf: Record<string, string> = {
  'demo-org/service-a': 'service-a',
  'demo-org/service-b': 'service-b',
  'demo-org/service-c': 'service-c',
};

async function api(method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
}

/** CI: the build of the pull request's head commit. */
async function publish(pr: Opened, sha: string): Promise<void> {
  const component = componentOf[pr.repository] as string;
  const image = ciImage(component, { headSha: sha, branch: pr.head });
  await api('POST', '/v1/projects/demo/builds', {
    component,
    repository: pr.repository,
    commit_sha: sha,
    ref: pr.head,
    image,
  });
}

/** Until each pull request's preview is in `state` (at its head commit, for `ready`). */
async function untilEach(
  prs: readonly Opened[],
  states: readonly Forge.PreviewState[],
  also: (preview: Forge.PreviewView) => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + 120_000;
  let nextSweep = Date.now() + 10_000;
  for (;;) {
    const all = await previewsNow();
    const done = prs.every((pr) =>
      all.some(
        (p) =>
          p.repository === pr.repository &&
          p.pull_request.number === pr.number &&
          states.includes(p.state) &&
          (p.state !== 'ready' || p.deployed_sha === p.pull_request.head_sha) &&
          also(p),
      ),
    );
    if (done) return;
    // The schedules are stopped: what their sweeps would redo on a loaded machine, they redo here.
    if (Date.now() > nextSweep) {
      await Promise.all([
        sweeps(stack.workerDeps)['forge-dispatch-sweep'](),
        sweeps(stack.workerDeps)['redispatch-sweep'](),
      ]);
      nextSweep = Date.now() + 10_000;
    }
    if (Date.now() > deadline) {
      const mine = all.filter((p) =>
        prs.some((pr) => pr.repository === p.repository && pr.number === p.pull_request.number),
      );
      throw new Error(
        `previews of ${JSON.stringify(prs)} not ${states.join(' or ')}: ${JSON.stringify(mine)}`,
      );
    }
    await sleep(200);
  }
}

/** Each repository's policy: its own component, grouped by branch when a change is wanted, in `mode`. */
async function setPolicies(repositories: readonly string[], mode: Forge.FeedbackMode, group: boolean) {
  for (const repository of repositories) {
    await api('PUT', `/v1/projects/demo/repositories/${encodeURIComponent(repository)}/preview-policy`, {
      enabled: true,
      trigger_label: 'preview',
      baseline: 'staging',
      components: [componentOf[repository]],
      group_by: group ? Forge.GroupBy.Branch : Forge.GroupBy.None,
      feedback: mode,
    });
  }
}

/** The writes of each phase of `copies` lives side by side, each a pull request per repository on one branch. */
async function lives(name: string, repositories: readonly string[], mode: Forge.FeedbackMode) {
  await setPolicies(repositories, mode, repositories.length > 1);
  const written = () => kinds(forge.requests()).writes;
  // Writes only: a convergence that lost a race on the change is retried later, and its reads of
  // the pull requests (304s) are no write.
  const settled = async () => {
    for (let last = written(); ; ) {
      await sleep(5000);
      if (written() === last) return;
      last = written();
    }
  };
  await settled();
  let mark = written();
  const phase = () => {
    const now = written();
    const per = (now - mark) / copies;
    mark = now;
    return per;
  };
  const prs: Opened[] = [];
  // A change's pull requests are opened one after another, each once the one before is in the
  // change, so the counts do not depend on how convergences racing on the change's record met.
  const joined = (pr: Opened, number: number) =>
    untilEach(
      [pr],
      ['waiting_for_build', 'deploying', 'ready'],
      (p) => p.change?.pull_requests.length === number,
    );
  for (let copy = 0; copy < copies; copy++) {
    const head = `${name}-${mode}-${copy}`;
    for (const repository of repositories) {
      const { pullRequest } = await forge.open({ repository, head, labels: ['preview'] });
      if (!pullRequest) throw new Error(`the forge did not open a pull request on ${repository}`);
      const pr = { repository, number: pullRequest.number, head };
      prs.push(pr);
      await publish(pr, pullRequest.headSha);
      if (repositories.length > 1) await joined(pr, repositories.indexOf(repository) + 1);
    }
  }
  await untilEach(prs, ['ready']);
  await settled();
  const opened = phase();
  const pushedTo = prs.filter((pr) => pr.repository === repositories[0]);
  for (const pr of pushedTo) {
    const sha = (await forge.push({ repository: pr.repository, number: pr.number })).pullRequest?.headSha;
    await publish(pr, sha as string);
  }
  await untilEach(prs, ['ready']);
  await settled();
  const pushed = phase();
  for (const pr of prs) await forge.close({ repository: pr.repository, number: pr.number });
  await untilEach(prs, ['stopped']);
  await settled();
  const life = { name, mode, opened, pushed, closed: phase() };
  console.error(JSON.stringify(life));
  return life;
}

for (const repository of ['demo-org/service-a', 'demo-org/service-c']) await forge.install({ repository });
const feedbackLives = [];
for (const mode of Object.values(Forge.FeedbackMode)) {
  feedbackLives.push(await lives('single', ['demo-org/service-b'], mode));
  feedbackLives.push(await lives('change-2', ['demo-org/service-a', 'demo-org/service-b'], mode));
  feedbackLives.push(
    await lives('change-3', ['demo-org/service-a', 'demo-org/service-b', 'demo-org/service-c'], mode),
  );
}

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
  '',
  `Writes (content-creating requests) of one life in each feedback mode, ${copies} side by side; per pull-request preview, or per change (the push to one of its pull requests):`,
  '',
  '| preview | feedback | opened → ready | a push → ready | closed | with three pushes | per hour at 500 writes |',
  '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ...feedbackLives.map((life) => {
    const three = life.opened + 3 * life.pushed + life.closed;
    const label = life.name === 'single' ? 'a pull request' : `a change of ${life.name.slice(-1)}`;
    return `| ${label} | ${life.mode} | ${life.opened.toFixed(1)} | ${life.pushed.toFixed(1)} | ${life.closed.toFixed(1)} | ${three.toFixed(1)} | ${Math.floor(500 / three)} |`;
  }),
];
console.log(lines.join('\n'));

await stack.stop();
