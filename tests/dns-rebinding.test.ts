/**
 * DNS rebinding: a page on evil.example whose name resolves to 127.0.0.1 reaches the local server
 * with `Host: evil.example` and its own `Origin`. Dev mode (every caller the Admin) answers only
 * loopback host names; every other mode compares `Origin` with its configured public origin, never
 * with one derived from `Host`.
 */
import { request } from 'node:http';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { startTestStack } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A request as a browser on a rebinding page sends it: our socket, its Host and Origin. */
function asRebound(
  apiUrl: string,
  options: { method: string; path: string; host: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; text: string }> {
  const url = new URL(apiUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: options.path,
        headers: { host: options.host, ...options.headers },
      },
      (incoming) => {
        let text = '';
        incoming.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('dev mode', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ worker: false });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('answers nothing to a host name that is not loopback', async () => {
    const port = new URL(stack.apiUrl).port;
    const evil = `evil.example:${port}`;
    const read = await asRebound(stack.apiUrl, { method: 'GET', path: '/v1/projects', host: evil });
    expect(read.status).toBe(403);
    expect(JSON.parse(read.text).code).toBe('forbidden');
    const plan = await asRebound(stack.apiUrl, {
      method: 'POST',
      path: '/v1/compositions/plan',
      host: evil,
      headers: { 'content-type': 'application/json', origin: `http://${evil}` },
      body: JSON.stringify({ project: 'demo', baseline: 'staging', name: 'x', overrides: {} }),
    });
    expect(plan.status).toBe(403);
    const console = await asRebound(stack.apiUrl, {
      method: 'GET',
      path: '/console/compositions',
      host: evil,
    });
    expect(console.status).toBe(403);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `svc.localhost:${port}`]) {
      expect(
        (await asRebound(stack.apiUrl, { method: 'GET', path: '/v1/projects', host })).status,
        host,
      ).toBe(200);
    }
  });
});

describe('password mode', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startTestStack({ worker: false, authMode: Auth.AuthMode.Password });
  }, 60_000);
  afterAll(() => stack?.stop());

  it('compares Origin with the configured public origin, not with Host', async () => {
    const evil = `evil.example:${new URL(stack.apiUrl).port}`;
    const signIn = await asRebound(stack.apiUrl, {
      method: 'POST',
      path: '/auth/login',
      host: evil,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: `http://${evil}` },
      body: new URLSearchParams({ username: 'alice', password: 'alice-local-password' }).toString(),
    });
    expect(signIn.status).toBe(403);
    expect(signIn.text).toContain('did not say this form came from this service');
    const config = await asRebound(stack.apiUrl, { method: 'GET', path: '/auth/config', host: evil });
    expect(JSON.parse(config.text).issuer).toBe(stack.apiUrl);
  });
});
