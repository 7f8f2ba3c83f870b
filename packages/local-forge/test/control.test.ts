import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verify } from '@octokit/webhooks-methods';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLocalForge } from '../src/index.ts';
import { bareClient, type Harness, installationClient, startHarness, startReceiver } from './support.ts';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '../src/cli.ts');

describe('control routes and CLI', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  const post = (path: string, body: unknown) =>
    fetch(`${h.forge.url}/_control${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('drives a pull request through HTTP and answers with the deliveries it caused', async () => {
    const opened = await post('/pulls', {
      repository: 'demo-org/service-b',
      head: 'feature',
      labels: ['preview'],
    });
    expect(opened.status).toBe(201);
    const body = (await opened.json()) as {
      pullRequest: { number: number };
      deliveries: { action: string }[];
    };
    expect(body.deliveries.map((d) => d.action)).toEqual(['opened', 'labeled']);
    const pushed = await post(`/pulls/demo-org/service-b/${body.pullRequest.number}/push`, {});
    expect(((await pushed.json()) as typeof body).deliveries.map((d) => d.action)).toEqual(['synchronize']);
    const unlabeled = await fetch(
      `${h.forge.url}/_control/pulls/demo-org/service-b/${body.pullRequest.number}/labels/preview`,
      {
        method: 'DELETE',
      },
    );
    expect(((await unlabeled.json()) as typeof body).deliveries.map((d) => d.action)).toEqual(['unlabeled']);
    expect(h.receiver.received.map((w) => w.payload.action)).toEqual([
      'opened',
      'labeled',
      'synchronize',
      'unlabeled',
    ]);
  });

  it('refuses bad control input with problem+json naming the field', async () => {
    const invalid = await post('/pulls', { repository: 'demo-org/service-b', head: 42 });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('content-type')).toBe('application/problem+json');
    expect(await invalid.json()).toMatchObject({ code: 'invalid_body', errors: [{ path: '/head' }] });
    const badRepository = await post('/pulls', { repository: 'no-slash', head: 'x' });
    expect(await badRepository.json()).toMatchObject({ status: 400, code: 'invalid_repository' });
    const missing = await post('/pulls/demo-org/service-b/9/close', {});
    expect(await missing.json()).toMatchObject({ status: 404, code: 'pull_request_not_found' });
    const badFault = await post('/faults', { rateLimit: { count: 1, kind: 'tertiary' } });
    expect(await badFault.json()).toMatchObject({ status: 422, errors: [{ path: '/rateLimit/kind' }] });
    expect(h.receiver.received).toEqual([]);
  });

  it('the CLI prints the JSON answer of each verb', async () => {
    const forge = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, [cli, ...args, '--url', h.forge.url]);
      return JSON.parse(stdout) as {
        pullRequest: { number: number; labels: string[] };
        deliveries: { action: string }[];
      };
    };
    const opened = await forge(
      'open',
      'demo-org/service-b',
      '--head',
      'feature',
      '--label',
      'preview',
      '--title',
      'CLI',
    );
    expect(opened.deliveries.map((d) => d.action)).toEqual(['opened', 'labeled']);
    const ref = `demo-org/service-b#${opened.pullRequest.number}`;
    expect((await forge('push', ref)).deliveries.map((d) => d.action)).toEqual(['synchronize']);
    expect((await forge('unlabel', ref, 'preview')).pullRequest.labels).toEqual([]);
    expect((await forge('base', ref, 'release')).deliveries.map((d) => d.action)).toEqual(['edited']);
    expect((await forge('close', ref, '--merged')).deliveries.map((d) => d.action)).toEqual(['closed']);
    expect((await forge('install', 'cli-org/tool')).deliveries.map((d) => d.action)).toEqual(['created']);
    await forge('fail-deliveries', '1');
    await forge('rate-limit', '3', '--secondary', '--retry-after', '5');
    const state = (await forge('state')) as unknown as { faults: unknown; installations: unknown[] };
    expect(state.faults).toEqual({
      webhookFailures: 1,
      rateLimit: { count: 3, kind: 'secondary', retryAfterSeconds: 5 },
      serverErrors: null,
    });
    expect(state.installations).toHaveLength(2);

    const refused = await run(process.execPath, [cli, 'reopen', ref, '--url', h.forge.url]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect(JSON.parse((refused as { stderr: string }).stderr)).toMatchObject({ code: 'pull_request_merged' });
  });
});

describe('npm run forge -- serve', () => {
  it('serves a seeded forge, writes its key file and saves its state on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'local-forge-'));
    const keyFile = join(dir, 'app.pem');
    const stateFile = join(dir, 'forge.json');
    const child = spawn(process.execPath, [
      cli,
      'serve',
      '--port',
      '0',
      '--seed',
      '--app-id',
      '7',
      '--private-key-file',
      keyFile,
      '--state-file',
      stateFile,
    ]);
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const started = JSON.parse(line.toString()) as { url: string; appId: number };
      expect(started.appId).toBe(7);
      const state = (await (await fetch(`${started.url}/_control/state`)).json()) as {
        installations: { repositories: string[] }[];
      };
      expect(state.installations[0]?.repositories).toEqual(['demo-org/service-b']);
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number];
      expect(code).toBe(0);
      expect((await stat(stateFile)).size).toBeGreaterThan(0);
    } finally {
      child.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('persistence', () => {
  it('keeps the app, its key, installations, pull requests, tokens and deliveries across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'local-forge-'));
    const stateFile = join(dir, 'forge.json');
    const receiver = await startReceiver();
    try {
      const first = await startLocalForge({ webhookUrl: receiver.url, seed: true, appId: 42, stateFile });
      const opened = await first.open({
        repository: 'demo-org/service-b',
        head: 'feature',
        labels: ['preview'],
      });
      const installationId = first.state().installations[0]?.id ?? 0;
      const token = (
        (await installationClient(first, installationId).auth({ type: 'installation' })) as { token: string }
      ).token;
      await first.stop();
      expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

      const second = await startLocalForge({ webhookUrl: receiver.url, seed: true, stateFile });
      try {
        expect(second.appId).toBe(42);
        expect(second.privateKey).toBe(first.privateKey);
        expect(second.webhookSecret).toBe(first.webhookSecret);
        expect(second.state().installations).toEqual(first.state().installations);
        expect(second.state().pullRequests).toEqual([
          { ...opened.pullRequest, htmlUrl: expect.stringContaining('/pull/1'), comments: [], checkRuns: [] },
        ]);
        const { data } = await bareClient(second).request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          owner: 'demo-org',
          repo: 'service-b',
          pull_number: 1,
          headers: { authorization: `token ${token}` },
        });
        expect(data.labels.map((l) => l.name)).toEqual(['preview']);

        const pushed = await second.push({ repository: 'demo-org/service-b', number: 1 });
        expect(pushed.pullRequest?.number).toBe(1);
        const webhook = receiver.received.at(-1);
        expect(await verify(first.webhookSecret, webhook?.body ?? '', webhook?.signature ?? '')).toBe(true);
        expect(second.state().deliveries).toBe(3);
      } finally {
        await second.stop();
      }
    } finally {
      await receiver.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('listens on loopback only', async () => {
    await expect(startLocalForge({ host: '0.0.0.0' })).rejects.toThrow(/loopback only/);
  });
});
