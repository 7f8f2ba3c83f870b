/**
 * `svc installation check` through the real executable: the verdict is the exit code (0 passed,
 * 1 failed, 2 incomplete, spec 4.3), so the shared outcomes that would collide get 6 (usage) and
 * 7 (no verdict) instead; 5 stays authentication.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { httpClient, useTestStack } from '@svc/local/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, repoRoot, svc } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});
afterEach(async () => {
  await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
});

const dir = mkdtempSync(join(tmpdir(), 'svc-installation-'));
function specFile(spec: unknown, name = 'installation.json'): string {
  const path = join(dir, name);
  writeFileSync(path, typeof spec === 'string' ? spec : JSON.stringify(spec));
  return path;
}

const check = (file: string, options: { apiUrl?: string; stdin?: string } = {}) =>
  svc(['installation', 'check', '--file', file], { apiUrl: options.apiUrl ?? stack.apiUrl, ...options });

describe('svc installation check: the verdict is the exit code', () => {
  it('2 while evidence is incomplete, 0 once a mesh route has been accepted', async () => {
    const incomplete = await check(specFile({ targets: [{ project: 'demo' }] }));
    expect(incomplete.code, incomplete.stderr).toBe(2);
    expect(incomplete.json()).toMatchObject({ status: 'incomplete' });
    expect(incomplete.problem()).toMatchObject({
      code: 'installation_incomplete',
      status: null,
      // The demo's two baselines share the staging namespace, so both wait on the same evidence.
      errors: [
        { path: 'mesh-route-controller:demo/staging' },
        { path: 'mesh-route-controller:demo/staging-sleepy' },
      ],
    });

    const http = httpClient(stack.apiUrl);
    const created = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'mesh-proof',
      overrides: { 'service-c': { image: image('service-c') } },
    });
    expect(created.status).toBe(202);
    const wait = await svc(['composition', 'wait', created.body.id], { apiUrl: stack.apiUrl });
    expect(wait.code, wait.stderr).toBe(0);

    const passed = await check('-', { stdin: '{}' });
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stderr).toBe('');
    expect(passed.json().status).toBe('passed');
  });

  it('1 when a check fails, naming it on stderr with the report on stdout', async () => {
    await fetch(`${stack.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'deny', match: { verb: 'patch', resource: 'httproutes' } }),
    });
    const result = await check(specFile({}));
    expect(result.code, result.stderr).toBe(1);
    expect(result.json().status).toBe('failed');
    expect(result.problem()).toMatchObject({
      code: 'installation_failed',
      errors: [{ path: 'permissions:demo/staging' }, { path: 'permissions:demo/staging-sleepy' }],
    });
    expect(result.problem().detail).toContain('patch httproutes.gateway.networking.k8s.io');
  });
});

describe('svc installation check: outcomes without a verdict keep codes of their own', () => {
  it('6 for usage mistakes, sending nothing', async () => {
    const server = await recordingServer();
    try {
      const run = (args: string[], env: Record<string, string> = {}) =>
        svc(['installation', 'check', ...args], { apiUrl: server.url, env });
      const cases: [string[], Record<string, string>, string][] = [
        [[], {}, 'usage'],
        [['--file', specFile({}), '--verbose'], {}, 'usage'],
        [['--file', join(dir, 'absent.json')], {}, 'file_unreadable'],
        [['--file', specFile('{ not json', 'broken.json')], {}, 'invalid_argument'],
        [['--file', specFile({ targets: [{ project: 'Demo' }] }, 'bad.json')], {}, 'invalid_argument'],
        [['--file', specFile({})], { SVC_API_URL: 'ftp://x' }, 'invalid_environment'],
      ];
      for (const [args, env, code] of cases) {
        const result = await run(args, env);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(6);
        expect(result.problem().code).toBe(code);
      }
      const bad = await run(['--file', join(dir, 'bad.json')]);
      expect(bad.problem().errors[0].path).toBe('--file/targets/0/project');
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('7 when the API cannot be reached or refuses the specification', async () => {
    const unreachable = await check(specFile({}), { apiUrl: 'http://127.0.0.1:9' });
    expect(unreachable.code).toBe(7);
    expect(unreachable.problem().code).toBe('api_unreachable');
    const unknown = await check(specFile({ targets: [{ project: 'nowhere' }] }, 'unknown.json'));
    expect(unknown.code).toBe(7);
    expect(unknown.problem()).toMatchObject({ status: 422, code: 'unknown_reference' });
  });

  it('8 when the caller is not an Admin, as in every command', async () => {
    const server = await recordingServer(() => ({
      status: 403,
      body: {
        type: '/docs/errors.md#forbidden',
        title: 'Forbidden',
        status: 403,
        detail: 'Only an Admin can check the installation.',
        code: 'forbidden',
        errors: [],
      },
    }));
    try {
      const result = await check(specFile({}), { apiUrl: server.url });
      expect(result.code).toBe(8);
      expect(result.problem().code).toBe('forbidden');
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/installation/check']);
    } finally {
      await server.close();
    }
  });

  it('7 from the launcher when the CLI is not built, where other commands exit 1', () => {
    const unbuilt = mkdtempSync(join(tmpdir(), 'svc-unbuilt-'));
    mkdirSync(join(unbuilt, 'bin'));
    copyFileSync(join(repoRoot, 'packages', 'cli', 'bin', 'svc.js'), join(unbuilt, 'bin', 'svc.js'));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(unbuilt, 'bin', 'svc.js'), ...args], { encoding: 'utf8' });
    const result = run('installation', 'check', '--file', specFile({}));
    expect(result.status).toBe(7);
    expect(JSON.parse(result.stderr).code).toBe('cli_not_built');
    expect(run('version').status).toBe(1);
  });

  it('--help says which exit code means what', async () => {
    const result = await svc(['installation', 'check', '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Exit codes: 0 passed, 1 failed, 2 incomplete evidence');
    expect(result.stderr).toContain('6 usage, 7 no verdict');
  });
});
