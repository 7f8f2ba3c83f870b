/**
 * `npm start -- --clusters 2` on ports other than the defaults, driven as a person would: the
 * banner's own `npm run forge` command (run as printed) opens a pull request on the forge this stack
 * runs, the preview follows, the forge's page of the pull request shows the comment and the check
 * run, the console links there, and the demo catalog's log links name the API's actual address;
 * the second local cluster's demo baseline serves a preview at the gateway the banner names for it.
 */
import { type ChildProcess, exec, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Checks } from '@svc/core';
import { image } from '@svc/local/demo';
import { freePort, portInUse } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { repoRoot } from '../packages/cli/test/helpers.ts';

const run = promisify(exec);

/** A free port whose second port above is free too: the second local cluster's gateway listens there. */
async function gatewayPorts(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (!(await portInUse(port + 2))) return port;
  }
}

let child: ChildProcess;
let stateDir: string;
let banner = '';

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'svc-ports-'));
  const gatewayPort = await gatewayPorts();
  const port = await freePort('127.0.0.1', [gatewayPort, gatewayPort + 2]);
  const forgePort = await freePort('127.0.0.1', [port, gatewayPort, gatewayPort + 2]);
  child = spawn(process.execPath, [join(repoRoot, 'packages/local/src/main.ts'), '--clusters', '2'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      GATEWAY_PORT: String(gatewayPort),
      FORGE_PORT: String(forgePort),
      SVC_STATE_DIR: stateDir,
      POD_READY_DELAY_MS: '20',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    // Its own DynamoDB Local JVM starts beside the other suites' work: give it what a cold start on
    // a busy two-core machine takes.
    const timer = setTimeout(() => reject(new Error(`npm start printed no banner:\n${banner}`)), 110_000);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      banner += chunk;
      if (banner.includes('Ctrl-C stops everything.')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`npm start exited ${code}:\n${banner}`)));
  });
}, 120_000);

afterAll(async () => {
  if (child.exitCode === null) {
    child.kill('SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  await rm(stateDir, { recursive: true, force: true });
});

/** The banner line starting with `prefix`, without the comment after it. */
const bannerLine = (prefix: string) => {
  const line = banner.split('\n').find((l) => l.trim().startsWith(prefix));
  if (!line) throw new Error(`the banner has no "${prefix}" line:\n${banner}`);
  return line.trim().replace(/\s+#.*$/, '');
};

it('the banner, the forge command, the console and the catalog follow the ports the stack uses', async () => {
  const apiUrl = /API\s+(http:\/\/\S+)/.exec(banner)?.[1] ?? 'no API line';
  const forgeUrl = (/Local forge\s+(http:\/\/\S+?)\/?\s/.exec(banner)?.[1] ?? 'no forge line').replace(
    /\/$/,
    '',
  );
  expect(apiUrl).toBe(`http://127.0.0.1:${new URL(apiUrl).port}`);
  expect(bannerLine('export SVC_API_URL=')).toBe(`export SVC_API_URL=${apiUrl}`);

  const open = bannerLine('npm run forge -- open');
  expect(open).toContain(`--url ${forgeUrl}`);
  const { stdout } = await run(open, { cwd: repoRoot });
  const opened = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { pullRequest: { htmlUrl: string } };
  expect(opened.pullRequest.htmlUrl).toBe(`${forgeUrl}/demo-org/service-b/pull/1`);

  const deadline = Date.now() + 30_000;
  let preview: { state: string; url: string | null } | undefined;
  while (preview?.state !== 'ready' && Date.now() < deadline) {
    const answer = await fetch(`${apiUrl}/v1/forge/previews?project=demo`);
    preview = ((await answer.json()) as { items: (typeof preview)[] }).items[0];
    if (preview?.state !== 'ready') await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(preview?.state).toBe('ready');

  // The pull request's page, as the banner names it: the comment with the URL and the check run.
  const pageUrl = bannerLine(`${forgeUrl}/`);
  expect(pageUrl).toBe(opened.pullRequest.htmlUrl);
  // The check run and the comment are written a moment after the preview is ready.
  const comments = (text: string) => text.slice(text.indexOf('<h2>Comments</h2>'));
  const written = (text: string) =>
    text.includes('<strong>success</strong>') && comments(text).includes(preview?.url ?? '-');
  let page = '';
  while (!written(page) && Date.now() < deadline) {
    page = await (await fetch(pageUrl)).text();
    if (!written(page)) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(page).toContain('<strong>success</strong>');
  expect(page).toContain('preview-service[bot]</strong> commented');
  expect(comments(page)).toContain(preview?.url);

  const console = await (await fetch(`${apiUrl}/console/pr-previews?project=demo`)).text();
  expect(console).toContain(`href="${pageUrl}"`);
  expect(console).not.toContain('https://github.com/demo-org');

  const baselines = (await (await fetch(`${apiUrl}/v1/projects/demo/baselines`)).json()) as {
    items: { observability: Record<string, string> }[];
  };
  expect(baselines.items[0]?.observability.logs).toMatch(new RegExp(`^${apiUrl}/v1/compositions/`));
}, 60_000);

it('runs the second local cluster with its own demo baseline, whose previews answer at the gateway the banner names', async () => {
  const apiUrl = /API\s+(http:\/\/\S+)/.exec(banner)?.[1] ?? 'no API line';
  const gateway =
    /Cluster local-2\s+\S+ preview gateway http:\/\/<composition-id>\.preview\.localhost:(\d+)\//.exec(
      banner,
    )?.[1];
  const first = /Preview gateway\s+http:\/\/<composition-id>\.preview\.localhost:(\d+)\//.exec(banner)?.[1];
  expect(Number(gateway)).toBe(Number(first) + 2);
  expect(bannerLine('npx svc composition create --name on-local-2')).toContain('--baseline staging-2');

  const post = await fetch(`${apiUrl}/v1/compositions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      project: 'demo',
      baseline: 'staging-2',
      name: 'on-local-2',
      overrides: { 'service-b': { image: image('service-b', '2.0.0') } },
    }),
  });
  const created = (await post.json()) as { id: string; endpoints: { public: { url: string } } };
  expect(new URL(created.endpoints.public.url).port).toBe(gateway);
  const deadline = Date.now() + 30_000;
  let phase = '';
  while (phase !== 'ready' && Date.now() < deadline) {
    phase = ((await (await fetch(`${apiUrl}/v1/compositions/${created.id}`)).json()) as { phase: string })
      .phase;
    if (phase !== 'ready') await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(phase).toBe('ready');
  const answer = await gatewayFetch(`http://127.0.0.1:${gateway}`, created.endpoints.public.url);
  const hops = Checks.hopsOf(await answer.json()) ?? [];
  expect(hops.find((h) => h.component === 'service-b')?.image).toBe(image('service-b', '2.0.0'));
  const health = (await (await fetch(`${apiUrl}/healthz`)).json()) as {
    dependencies: Record<string, unknown>;
  };
  expect(Object.keys(health.dependencies)).toEqual(
    expect.arrayContaining(['cluster:local', 'cluster:local-2']),
  );
}, 60_000);
