/**
 * `@svc/client` against the local stack in token mode, as a team's CI script uses it: the script of
 * docs/ci.md, type-checked and run as written, then what the client promises — answers typed by the
 * contract, inputs refused before anything is sent, every failure one ApiError.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ApiError, createClient } from '@svc/client';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, '..');

let stack: Stack;
let admin: HttpClient;
let ciToken: string;
useTestStack({ authMode: Auth.AuthMode.Token }, async (started) => {
  stack = started.stack;
  admin = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await started.token('admin', Auth.Role.Admin)}`,
  });
  ciToken = await started.token('ci-script', [{ role: 'developer', project: 'demo', repository: null }]);
});

/** The script docs/ci.md shows, in a folder of its own that resolves `@svc/client` as a workspace does. */
function documentedScript(): string {
  const page = readFileSync(join(repoRoot, 'docs', 'ci.md'), 'utf8');
  const block = /<!-- the script tests\/client\.test\.ts runs -->\n\n```ts\n([\s\S]*?)```/.exec(page)?.[1];
  expect(block, 'docs/ci.md shows the script').toBeDefined();
  const dir = mkdtempSync(join(tmpdir(), 'svc-client-script-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  const script = join(dir, 'preview.mts');
  writeFileSync(script, block ?? '');
  return script;
}

/** A fetch that counts what it sends, so a test can tell that nothing was. */
function countingFetch() {
  const sent: string[] = [];
  const send: typeof fetch = (input, init) => {
    sent.push(`${init?.method ?? 'GET'} ${String(input)}`);
    return fetch(input, init);
  };
  return { sent, fetch: send };
}

describe('the script in docs/ci.md', () => {
  it('type-checks against the contract and runs a preview end to end', async () => {
    const script = documentedScript();
    const tsc = join(repoRoot, 'node_modules', '.bin', 'tsc');
    const options = ['--noEmit', '--strict', '--exactOptionalPropertyTypes', '--module', 'nodenext'];
    const more = ['--target', 'es2024', '--types', 'node', '--allowImportingTsExtensions', '--skipLibCheck'];
    // From the script's folder, which resolves `@types/node` as it resolves `@svc/client`.
    await run(tsc, [...options, ...more, script], { cwd: dirname(script) });

    const { stdout } = await run(process.execPath, [script], {
      env: {
        ...process.env,
        SVC_API_URL: stack.apiUrl,
        SVC_API_TOKEN: ciToken,
        CI_RUN_ID: 'docs-1',
        IMAGE: 'registry.example.com/demo/service-b:2.0.0',
      },
    });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ passed: true, url: expect.stringContaining(result.id) });
    const composition = await admin.get(`/v1/compositions/${result.id}`);
    // The script asked for the destroy; the worker may have finished it already.
    expect(['destroying', 'destroyed']).toContain(composition.body.phase);
    const checks = await admin.get(`/v1/compositions/${result.id}/verification`);
    expect(checks.body.items[0]).toMatchObject({ status: 'passed', message: 'tests of docs-1' });
  }, 60_000);
});

describe('the typed client', () => {
  it('answers the body of a success, typed by the contract', async () => {
    const svc = createClient({ baseUrl: stack.apiUrl, token: ciToken });
    const page = await svc.call('listCompositions', { query: { project: 'demo', limit: 5 } });
    expect(page).toMatchObject({ items: expect.any(Array), next_cursor: null });
    const identity = await svc.call('getIdentity');
    expect(identity.subject).toBe('token:ci-script');
  });

  it('throws the server problem as an ApiError naming the request', async () => {
    const svc = createClient({ baseUrl: stack.apiUrl, token: ciToken });
    const missing = await svc.call('getComposition', { path: { id: 'c-missing' } }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ApiError);
    expect(missing).toMatchObject({
      status: 404,
      code: 'not_found',
      request: { operationId: 'getComposition', method: 'GET', path: '/v1/compositions/c-missing' },
    });
    const anonymous = createClient({ baseUrl: stack.apiUrl });
    await expect(anonymous.call('listCompositions')).rejects.toMatchObject({
      status: 401,
      code: 'unauthenticated',
    });
  });

  it('refuses an input the operation would refuse, sending nothing', async () => {
    const counted = countingFetch();
    const svc = createClient({ baseUrl: stack.apiUrl, token: ciToken, fetch: counted.fetch });
    await expect(svc.call('getComposition', { path: { id: 'Not An Id' } })).rejects.toMatchObject({
      status: null,
      code: 'invalid_input',
      problem: { errors: [{ path: 'id' }] },
    });
    await expect(svc.call('listCompositions', { query: { limit: 0 } })).rejects.toMatchObject({
      code: 'invalid_input',
      problem: { errors: [{ path: 'limit', message: 'must be an integer from 1 to 200' }] },
    });
    const body = { project: 'demo', name: 'Not_A_Name', overrides: {} };
    await expect(svc.call('createComposition', { body })).rejects.toMatchObject({
      code: 'invalid_input',
      problem: { errors: [{ path: '/name' }] },
    });
    expect(counted.sent).toEqual([]);
  });

  it('keeps a token off plain http to another machine, and says when there is no answer', async () => {
    const counted = countingFetch();
    const remote = createClient({ baseUrl: 'http://svc.example.com', token: ciToken, fetch: counted.fetch });
    await expect(remote.call('listProjects')).rejects.toMatchObject({ code: 'insecure_transport' });
    expect(counted.sent).toEqual([]);
    const closed = createClient({ baseUrl: 'http://127.0.0.1:9', token: ciToken });
    await expect(closed.call('getVersion')).rejects.toMatchObject({ status: null, code: 'api_unreachable' });
  });

  it('answers any documented answer through send, a health report among them', async () => {
    const svc = createClient({ baseUrl: stack.apiUrl });
    const health = await svc.send('getHealth');
    expect([200, 503]).toContain(health.status);
    expect(health.body.auth.mode).toBe('token');
  });
});
