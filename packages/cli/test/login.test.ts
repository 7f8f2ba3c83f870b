/**
 * `svc auth login` / `logout` / `status` against a password installation, with the browser's part
 * driven over HTTP: the CLI prints the address (--no-browser), the "browser" signs in and is sent
 * back to the CLI's loopback listener, the CLI saves the login; ordinary commands then refresh it
 * silently, and logout revokes it on the server.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { answerConsent, Browser, formOf, httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, type SvcResult, svc } from './helpers.ts';

let stack: Stack;
let adminToken: string;
useTestStack({ authMode: Auth.AuthMode.Password, alongside: ensureBuilt }, async (started) => {
  stack = started.stack;
  adminToken = await started.token('cli-admin', 'admin');
});

/** Runs `svc auth login --no-browser` and plays the browser once the address shows on stderr. */
async function login(
  env: Record<string, string>,
  username: string,
  password = `${username}-local-password`,
  first: (authorizeUrl: URL) => Promise<void> = async () => {},
) {
  let signedIn: Promise<void> | undefined;
  let printed = '';
  const result = await svc(['auth', 'login', '--no-browser', '--timeout', '30s'], {
    apiUrl: stack.apiUrl,
    env,
    onStderr: (chunk) => {
      printed += chunk;
      const url = /(http:\/\/\S+\/auth\/authorize\S+)/.exec(printed)?.[1];
      if (!url || signedIn) return;
      signedIn = (async () => {
        await first(new URL(url));
        const browser = new Browser();
        const page = await browser.follow(await browser.get(url));
        const form = formOf(page);
        const answer = await browser.post(form.action, { ...form.fields, username, password });
        await browser.follow(await answerConsent(browser, await browser.follow(answer)));
      })();
    },
  });
  await signedIn;
  return result;
}

const signInEnded =
  'This sign-in was ended (signed out, by an Admin, or by a password change, a disable or a deletion); sign in again (svc auth login).';

/**
 * Exit 5 with the server's 401 as it answers any refused credential (that of no credential at all,
 * the request id aside) as the problem, and before it on stderr, why: what the challenge said.
 */
async function expectRefused(result: SvcResult, why: string) {
  expect(result.code, result.stderr).toBe(5);
  const { instance: _, ...problem } = result.problem();
  const { instance: __, ...anonymous } = (await httpClient(stack.apiUrl).get('/v1/compositions')).body;
  expect(problem).toEqual({ ...anonymous, code: 'unauthenticated' });
  expect(result.stderr.trim().split('\n').at(-2)).toBe(`svc: ${why}`);
}

const configDir = () => ({
  XDG_CONFIG_HOME: `${process.env.TMPDIR ?? '/tmp'}/svc-login-${Math.random().toString(36).slice(2)}`,
});

describe('svc auth login', () => {
  it('signs in through the browser flow and saves an owner-only login keyed by the server origin', async () => {
    const env = configDir();
    const result = await login(env, 'bob');
    expect(result.code, result.stderr).toBe(0);
    const out = result.json();
    expect(out).toMatchObject({ api_url: stack.apiUrl, subject: 'user:bob' });
    const path = out.credentials_file as string;
    expect(path).toBe(`${env.XDG_CONFIG_HOME}/svc/credentials.json`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(path, 'utf8'));
    expect(saved.version).toBe(1);
    expect(saved.servers[new URL(stack.apiUrl).origin]).toMatchObject({ subject: 'user:bob' });

    const status = await svc(['auth', 'status'], { apiUrl: stack.apiUrl, env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({
      source: 'saved_login',
      identity: { subject: 'user:bob', kind: 'user', credential: { kind: 'access_token' } },
    });
  });

  it('refreshes an expired access token silently, rotating the saved refresh token', async () => {
    const env = configDir();
    expect((await login(env, 'carol')).code).toBe(0);
    const path = `${env.XDG_CONFIG_HOME}/svc/credentials.json`;
    const file = JSON.parse(readFileSync(path, 'utf8'));
    const origin = new URL(stack.apiUrl).origin;
    const before = file.servers[origin];
    file.servers[origin] = { ...before, access_token_expires_at: new Date(Date.now() - 1000).toISOString() };
    (await import('node:fs')).writeFileSync(path, JSON.stringify(file), { mode: 0o600 });

    const listed = await svc(['composition', 'list'], { apiUrl: stack.apiUrl, env });
    expect(listed.code, listed.stderr).toBe(0);
    const after = JSON.parse(readFileSync(path, 'utf8')).servers[origin];
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Date.parse(after.access_token_expires_at)).toBeGreaterThan(Date.now());
    // The spent refresh token is now a replay: the server revokes the whole sign-in.
    const replay = await httpClient(stack.apiUrl).request('POST', '/auth/token', {
      body: new URLSearchParams({
        client_id: 'svc-cli',
        grant_type: 'refresh_token',
        refresh_token: before.refresh_token,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(replay.body.error).toBe('invalid_grant');
    // What docs/cli.md says the CLI shows: what happened, and what to do.
    await expectRefused(await svc(['composition', 'list'], { apiUrl: stack.apiUrl, env }), signInEnded);
  });

  it('its loopback listener answers only its own sign-in: another path 404, another state 400, and it keeps waiting', async () => {
    const env = configDir();
    const answers: [number, string][] = [];
    const result = await login(env, 'bob', undefined, async (authorize) => {
      const callback = new URL(authorize.searchParams.get('redirect_uri') ?? '');
      for (const url of [
        new URL('/elsewhere', callback),
        new URL(`${callback.pathname}?state=not-this-one&code=stolen`, callback),
      ]) {
        const answer = await fetch(url);
        answers.push([answer.status, await answer.text()]);
      }
    });
    expect(answers[0]?.[0]).toBe(404);
    expect(answers[1]?.[0]).toBe(400);
    expect(answers[1]?.[1]).toContain('This answer does not belong to the sign-in svc started.');
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ subject: 'user:bob' });
  });

  it('logout revokes the sign-in on the server, then forgets it here', async () => {
    const env = configDir();
    expect((await login(env, 'alice')).code).toBe(0);
    const path = `${env.XDG_CONFIG_HOME}/svc/credentials.json`;
    const saved = JSON.parse(readFileSync(path, 'utf8')).servers[new URL(stack.apiUrl).origin];
    const out = await svc(['auth', 'logout'], { apiUrl: stack.apiUrl, env });
    expect(out.code, out.stderr).toBe(0);
    expect(out.json()).toMatchObject({ removed: true, revoked: true });
    const api = httpClient(stack.apiUrl, { authorization: `Bearer ${saved.access_token}` });
    expect((await api.get('/v1/projects')).status).toBe(401);
  });

  it('fails clearly on a wrong password, saving nothing', async () => {
    const env = configDir();
    const result = await svc(['auth', 'login', '--no-browser', '--timeout', '2s'], {
      apiUrl: stack.apiUrl,
      env,
      onStderr: (chunk) => {
        const url = /(http:\/\/\S+\/auth\/authorize\S+)/.exec(chunk)?.[1];
        if (!url) return;
        void (async () => {
          const browser = new Browser();
          const page = await browser.follow(await browser.get(url));
          const form = formOf(page);
          await browser.post(form.action, { ...form.fields, username: 'bob', password: 'wrong-password-1' });
        })();
      },
    });
    expect(result.code).toBe(1);
    expect(result.problem()).toMatchObject({ code: 'login_failed' });
    expect(() => statSync(`${env.XDG_CONFIG_HOME}/svc/credentials.json`)).toThrow();
  });

  it('refuses to send a credential over plain http to a host that is not loopback', async () => {
    const result = await svc(['composition', 'list'], {
      apiUrl: 'http://svc.example.com',
      env: { SVC_API_TOKEN: 'svc_whatever' },
    });
    expect(result.code).toBe(2);
    expect(result.problem()).toMatchObject({ code: 'insecure_transport' });
  });
});

describe('svc admin users', () => {
  it('lists a person’s sign-ins and ends one, then all; the person’s CLI stops at its next command', async () => {
    const env = configDir();
    expect((await login(env, 'bob')).code).toBe(0);
    const asAdmin = { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: adminToken } };
    const listed = await svc(['admin', 'users', 'sign-ins', 'bob'], asAdmin);
    expect(listed.code, listed.stderr).toBe(0);
    const cli = (listed.json().items as { id: string; kind: string }[]).find((item) => item.kind === 'cli');
    expect(cli?.id).toMatch(/^sig-/);

    const ended = await svc(['admin', 'users', 'end-sign-ins', 'bob', '--id', cli?.id ?? ''], asAdmin);
    expect(ended.code, ended.stderr).toBe(0);
    expect(ended.json()).toEqual({ username: 'bob', ended: cli?.id });
    // What docs/cli.md says the CLI shows: what happened, and what to do.
    await expectRefused(await svc(['composition', 'list'], { apiUrl: stack.apiUrl, env }), signInEnded);

    expect((await login(env, 'bob')).code).toBe(0);
    const all = await svc(['admin', 'users', 'end-sign-ins', 'bob'], asAdmin);
    expect(all.json()).toEqual({ username: 'bob', ended: 'all' });
    expect((await svc(['composition', 'list'], { apiUrl: stack.apiUrl, env })).code).toBe(5);
    expect((await svc(['admin', 'users', 'sign-ins', 'bob'], asAdmin)).json().items).toEqual([]);
  });

  it('refuses a malformed name or id before sending anything, and answers 404 for an unknown person', async () => {
    const asAdmin = { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: adminToken } };
    const badName = await svc(['admin', 'users', 'sign-ins', 'Not A Name'], asAdmin);
    expect(badName.code).toBe(2);
    const badId = await svc(['admin', 'users', 'end-sign-ins', 'bob', '--id', 'tok-1'], asAdmin);
    expect(badId.code).toBe(2);
    expect(badId.problem().errors[0].path).toBe('--id');
    const unknown = await svc(['admin', 'users', 'sign-ins', 'nobody'], asAdmin);
    expect(unknown.code).toBe(1);
    expect(unknown.problem().status).toBe(404);
  });
});

describe('svc admin users: people, from a terminal', () => {
  const asAdmin = () => ({ apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: adminToken } });
  const admin = (...args: string[]) => svc(['admin', 'users', ...args], asAdmin());

  it('set creates a person with grants and a password read from a file; they sign in with it', async () => {
    const created = await svc(
      ['admin', 'users', 'set', 'dora', '--grant', 'developer:demo', '--password-file', '-'],
      { ...asAdmin(), stdin: 'dora-local-password\n' },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.json()).toMatchObject({
      username: 'dora',
      grants: [{ role: 'developer', project: 'demo' }],
      has_password: true,
      disabled: false,
    });
    const listed = await admin('list', '--limit', '200');
    expect(listed.json().items.map((user: { username: string }) => user.username)).toContain('dora');
    const env = configDir();
    expect((await login(env, 'dora')).code).toBe(0);
    expect((await svc(['auth', 'status'], { apiUrl: stack.apiUrl, env })).json()).toMatchObject({
      identity: { subject: 'user:dora' },
    });

    const disabled = await admin('disable', 'dora');
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.json()).toMatchObject({
      disabled: true,
      grants: [{ role: 'developer', project: 'demo' }],
    });
    await expectRefused(await svc(['composition', 'list'], { apiUrl: stack.apiUrl, env }), signInEnded);

    const deleted = await admin('delete', 'dora');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json()).toEqual({ username: 'dora', deleted: true });
    expect((await admin('delete', 'dora')).problem()).toMatchObject({ status: 404 });
    const unknown = await admin('disable', 'dora');
    expect(unknown.code).toBe(1);
    expect(unknown.problem()).toMatchObject({ code: 'unknown_reference' });
  });

  it('refuses a bad grant or a short password before sending anything', async () => {
    const grant = await admin('set', 'erin', '--grant', 'owner:demo');
    expect(grant.code).toBe(2);
    expect(grant.problem().errors[0].path).toBe('--grant');
    const short = await svc(['admin', 'users', 'set', 'erin', '--password-file', '-'], {
      ...asAdmin(),
      stdin: 'short',
    });
    expect(short.code).toBe(2);
    expect(short.problem().errors[0].path).toBe('--password-file');
    expect(
      (await admin('list')).json().items.map((user: { username: string }) => user.username),
    ).not.toContain('erin');
  });
});

describe('svc admin tokens', () => {
  const admin = (...args: string[]) =>
    svc(['admin', 'tokens', ...args], { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: adminToken } });

  it('issues a token with the grants given, lists it without its secret, revokes it; its holder is told', async () => {
    const issued = await admin(
      'issue',
      '--name',
      'ci-service-b',
      '--grant',
      'publisher:demo:acme/service-b',
      '--grant',
      'developer:demo',
      '--expires-in-days',
      '30',
    );
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.json();
    expect(token).toMatchObject({
      name: 'ci-service-b',
      subject: 'token:ci-service-b',
      grants: [
        { role: 'publisher', project: 'demo', repository: 'acme/service-b' },
        { role: 'developer', project: 'demo', repository: null },
      ],
      token: expect.stringMatching(/^svc_/),
    });
    const asCi = { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: token.token } };
    expect((await svc(['composition', 'list'], asCi)).code).toBe(0);

    const listed = await admin('list');
    expect(listed.json().items.find((t: { id: string }) => t.id === token.id)).toMatchObject({
      revoked_at: null,
    });
    expect(listed.stdout).not.toContain(token.token);

    const revoked = await admin('revoke', token.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json().revoked_at).toMatch(/Z$/);
    await expectRefused(
      await svc(['composition', 'list'], asCi),
      'This machine token was revoked; ask an Admin for a new one (svc admin tokens issue).',
    );
  });

  it('takes the whole body from --file, and refuses flags beside it or a bad grant, sending nothing', async () => {
    const body = { name: 'from-file', grants: [{ role: 'viewer', project: 'demo' }], expires_in_days: 1 };
    const issued = await svc(['admin', 'tokens', 'issue', '--file', '-'], {
      apiUrl: stack.apiUrl,
      env: { SVC_API_TOKEN: adminToken },
      stdin: JSON.stringify(body),
    });
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.json()).toMatchObject({ name: 'from-file', grants: [{ role: 'viewer', project: 'demo' }] });
    expect((await admin('issue', '--file', '-', '--name', 'x')).code).toBe(2);
    const bad = await admin('issue', '--name', 'x', '--grant', 'developer');
    expect(bad.code).toBe(2);
    expect(bad.problem().errors[0].path).toBe('--grant');
    expect((await admin('issue', '--name', 'x')).code).toBe(2);
  });
});
