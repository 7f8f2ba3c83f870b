/**
 * Password mode end to end: signing in through the service's own authorization endpoint as a
 * browser would (redirects, the sign-in form, cookies), the CLI's code exchange with PKCE, refresh
 * rotation and reuse detection, revocation, browser sessions with CSRF, their expiry, and drafts
 * kept per person.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import {
  answerConsent,
  authorizeUrl,
  Browser,
  formOf,
  httpClient,
  pkce,
  type TestClock,
  testClock,
  tokenRequest,
  useTestStack,
} from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

const clock: TestClock = testClock();
let stack: Stack;
useTestStack(
  { authMode: Auth.AuthMode.Password, clock, auth: { settings: { limits: { sign_ins_per_5_minutes: 5 } } } },
  (started) => {
    stack = started.stack;
  },
);

const redirectUri = 'http://127.0.0.1:53682/callback';

/** A browser that signed in as `username`, starting from `start` (a page that needs a session). */
async function signIn(username: string, password = `${username}-local-password`, start?: string) {
  const browser = new Browser();
  const first = await browser.get(start ?? `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`);
  const page = first.status === 200 ? first : await browser.follow(first);
  const form = formOf(page);
  const answer = await browser.post(form.action, { ...form.fields, username, password });
  return { browser, answer };
}

/** The whole `svc auth login` exchange: authorize, sign in, come back with a code, trade it. */
async function cliLogin(username: string) {
  const request = pkce();
  const { browser, answer } = await signIn(
    username,
    undefined,
    authorizeUrl(stack.apiUrl, redirectUri, request),
  );
  expect(answer.status).toBe(303);
  const back = await answerConsent(browser, await browser.follow(answer));
  const callback = new URL(back.location ?? '');
  expect(callback.origin + callback.pathname).toBe(redirectUri);
  expect(callback.searchParams.get('state')).toBe(request.state);
  const code = callback.searchParams.get('code') ?? '';
  const tokens = await tokenRequest(stack.apiUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    code_verifier: request.verifier,
  });
  return { tokens, code, request, browser };
}

const bearer = (token: string) => httpClient(stack.apiUrl, { authorization: `Bearer ${token}` });

describe('svc auth login against a password installation', () => {
  it('signs in through the authorization endpoint and gets a 15-minute access token and a refresh token', async () => {
    const { tokens } = await cliLogin('bob');
    expect(tokens.status).toBe(200);
    expect(tokens.headers.get('cache-control')).toBe('no-store');
    expect(tokens.body).toMatchObject({ token_type: 'Bearer', expires_in: 900, subject: 'user:bob' });
    expect(tokens.body.access_token).toMatch(/^svca_/);
    expect(tokens.body.refresh_token).toMatch(/^svcr_/);
    expect(tokens.body.refresh_token_expires_in).toBeGreaterThan(30 * 86_400 - 60);
    const identity = await bearer(tokens.body.access_token).get('/v1/auth/identity');
    expect(identity.body).toMatchObject({
      subject: 'user:bob',
      kind: 'user',
      author: 'user:bob',
      grants: [{ role: 'developer', project: 'demo', repository: null }],
      credential: { kind: 'access_token' },
      mode: 'password',
    });
  });

  it('uses each authorization code once, only with its verifier and redirect URI', async () => {
    const { code, request, tokens } = await cliLogin('carol');
    expect(tokens.status).toBe(200);
    const again = await tokenRequest(stack.apiUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: request.verifier,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');

    const other = await cliLogin('carol');
    expect(other.tokens.status).toBe(200);
    const wrong = pkce();
    const { browser } = other;
    const fresh = await answerConsent(
      browser,
      await browser.get(authorizeUrl(stack.apiUrl, redirectUri, wrong)),
    );
    const freshCode = new URL(fresh.location ?? '').searchParams.get('code') ?? '';
    const badVerifier = await tokenRequest(stack.apiUrl, {
      grant_type: 'authorization_code',
      code: freshCode,
      redirect_uri: redirectUri,
      code_verifier: pkce().verifier,
    });
    expect(badVerifier.body.error).toBe('invalid_grant');
  });

  it('expires authorization codes after 60 seconds', async () => {
    const request = pkce();
    const { browser } = await signIn('carol');
    const step = await answerConsent(
      browser,
      await browser.get(authorizeUrl(stack.apiUrl, redirectUri, request)),
    );
    const code = new URL(step.location ?? '').searchParams.get('code') ?? '';
    clock.advance(61);
    const late = await tokenRequest(stack.apiUrl, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: request.verifier,
    });
    expect(late.body.error).toBe('invalid_grant');
  });

  it('never redirects to an address that is not a loopback IP literal, and requires PKCE and state', async () => {
    const browser = new Browser();
    for (const uri of ['https://evil.example.com/cb', 'http://localhost:5000/cb', 'http://127.0.0.1/cb']) {
      const step = await browser.get(authorizeUrl(stack.apiUrl, uri, pkce()));
      expect(step.status, uri).toBe(400);
      expect(step.location).toBeNull();
    }
    const noPkce = new URL(authorizeUrl(stack.apiUrl, redirectUri, pkce()));
    noPkce.searchParams.set('code_challenge_method', 'plain');
    const refused = await browser.get(noPkce.href);
    expect(new URL(refused.location ?? '').searchParams.get('error')).toBe('invalid_request');
  });

  it('rotates refresh tokens; a replayed one revokes the whole sign-in', async () => {
    const { tokens } = await cliLogin('bob');
    const first = tokens.body;
    const rotated = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    expect((await bearer(rotated.body.access_token).get('/v1/projects')).status).toBe(200);

    const replay = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
    });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect((await bearer(rotated.body.access_token).get('/v1/projects')).status).toBe(401);
    expect((await bearer(first.access_token).get('/v1/projects')).status).toBe(401);
    const after = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: rotated.body.refresh_token,
    });
    expect(after.body.error).toBe('invalid_grant');
  });

  it('expires access tokens after 15 minutes; a refresh gets a new one', async () => {
    const { tokens } = await cliLogin('bob');
    clock.advance(15 * 60 + 1);
    expect((await bearer(tokens.body.access_token).get('/v1/projects')).status).toBe(401);
    const refreshed = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
    });
    expect((await bearer(refreshed.body.access_token).get('/v1/projects')).status).toBe(200);
  });

  it('revokes the sign-in on /auth/revoke (svc auth logout)', async () => {
    const { tokens } = await cliLogin('bob');
    const revoke = await fetch(`${stack.apiUrl}/auth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'svc-cli', token: tokens.body.refresh_token }).toString(),
    });
    expect(revoke.status).toBe(200);
    expect((await bearer(tokens.body.access_token).get('/v1/projects')).status).toBe(401);
    const refresh = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('refuses a wrong password and an unknown user alike, and rate-limits failed attempts per address and name', async () => {
    const wrong = await signIn('alice', 'not-her-password');
    const unknown = await signIn('nobody', 'whatever-password');
    expect(wrong.answer.status).toBe(401);
    expect(unknown.answer.status).toBe(401);
    expect(wrong.answer.text).toContain('Unknown user name or wrong password.');
    expect(unknown.answer.text).toContain('Unknown user name or wrong password.');
    expect(wrong.answer.headers.get('set-cookie')).toBeNull();
    expect(wrong.answer.headers.get('x-frame-options')).toBe('DENY');
    expect(wrong.answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    // The six attempts below fall in one fixed 5-minute window, however slow the machine is.
    clock.advance(300 - ((clock.now().getTime() / 1000) % 300) + 1);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 6; i++) {
      const { answer } = await signIn('mallory', 'guess-number-x');
      statuses.push(answer.status);
      retryAfter ??= answer.headers.get('retry-after');
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('refuses a sign-in form posted from another origin', async () => {
    const browser = new Browser();
    const answer = await browser.post(
      `${stack.apiUrl}/auth/login`,
      { username: 'alice', password: 'alice-local-password', return_to: '/auth/config' },
      { origin: 'https://evil.example.com' },
    );
    expect(answer.status).toBe(403);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.text).toContain('did not say this form came from this service');
    expect(answer.headers.get('set-cookie')).toBeNull();
  });
});

describe('browser sessions', () => {
  const create = { project: 'demo', baseline: 'staging', name: 'from-browser', overrides: {} };

  async function session(username: string) {
    const { browser, answer } = await signIn(username);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('set-cookie')).toMatch(
      /^__Host-svc_session=svcs_[^;]+; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax/,
    );
    const config = JSON.parse((await browser.get(`${stack.apiUrl}/auth/config`)).text);
    expect(config.session.subject).toBe(`user:${username}`);
    const api = httpClient(stack.apiUrl, { cookie: browser.cookieHeader() });
    return { browser, api, csrf: config.csrf_token as string };
  }

  it('needs a same-origin Origin and the session CSRF token on every change, but not on reads', async () => {
    const { api, csrf } = await session('bob');
    expect((await api.get('/v1/compositions')).status).toBe(200);
    const origin = new URL(stack.apiUrl).origin;
    const missing = await api.post('/v1/compositions', create, { origin });
    expect(missing.status).toBe(403);
    expect(missing.body.code).toBe('csrf_rejected');
    const wrong = await api.post('/v1/compositions', create, { origin, 'x-csrf-token': `${csrf}x` });
    expect(wrong.body.code).toBe('csrf_rejected');
    const crossOrigin = await api.post('/v1/compositions', create, {
      origin: 'https://evil.example.com',
      'x-csrf-token': csrf,
    });
    expect(crossOrigin.body.code).toBe('csrf_rejected');
    const noOrigin = await api.post('/v1/compositions', create, { 'x-csrf-token': csrf });
    expect(noOrigin.body.code).toBe('csrf_rejected');
    const accepted = await api.post('/v1/compositions', create, { origin, 'x-csrf-token': csrf });
    expect(accepted.status).toBe(202);
    expect(accepted.body.owner).toEqual({ kind: 'user', subject: 'user:bob' });
  });

  it('ends after two idle hours', async () => {
    const { api } = await session('carol');
    clock.advance(2 * 3600 - 120);
    expect((await api.get('/v1/projects')).status).toBe(200);
    clock.advance(2 * 3600 - 60);
    expect((await api.get('/v1/projects')).status).toBe(200);
    clock.advance(2 * 3600 + 1);
    expect((await api.get('/v1/projects')).status).toBe(401);
  });

  it('ends 12 hours after sign-in, however active', async () => {
    const { api } = await session('carol');
    for (let hour = 1; hour < 12; hour++) {
      clock.advance(3600);
      expect((await api.get('/v1/projects')).status, `hour ${hour}`).toBe(200);
    }
    clock.advance(3600);
    expect((await api.get('/v1/projects')).status).toBe(401);
  });

  it('ends on logout, which needs the CSRF token too', async () => {
    const { browser, api, csrf } = await session('carol');
    const origin = new URL(stack.apiUrl).origin;
    const refused = await browser.post(`${stack.apiUrl}/auth/logout`, {}, { origin });
    expect(refused.status).toBe(403);
    const out = await browser.request('POST', `${stack.apiUrl}/auth/logout`, {
      headers: { origin, 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(204);
    expect((await api.get('/v1/projects')).status).toBe(401);
  });

  it('keeps one draft per person', async () => {
    const alice = await session('alice');
    const bob = await session('bob');
    const origin = new URL(stack.apiUrl).origin;
    const draft = { project: 'demo', revision: 0, stage: 'workloads', configuration: {} };
    const path = '/v1/projects/demo/onboarding-draft';
    const saved = await alice.api.put(path, draft, { origin, 'x-csrf-token': alice.csrf });
    expect(saved.body.author).toBe('user:alice');
    expect((await bob.api.get(path)).status).toBe(404);
    const own = await bob.api.put(path, draft, { origin, 'x-csrf-token': bob.csrf });
    expect(own.body).toMatchObject({ author: 'user:bob', revision: 1 });
  });

  it('stops a disabled user at their next request', async () => {
    const { api } = await session('carol');
    const admin = await session('alice');
    const origin = new URL(stack.apiUrl).origin;
    const disabled = await admin.api.put(
      '/v1/users/carol',
      { grants: [{ role: 'viewer', project: 'demo' }], disabled: true },
      { origin, 'x-csrf-token': admin.csrf },
    );
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ username: 'carol', disabled: true, has_password: true });
    expect((await api.get('/v1/projects')).status).toBe(401);
    expect((await signIn('carol')).answer.status).toBe(401);
    await admin.api.put(
      '/v1/users/carol',
      { grants: [{ role: 'viewer', project: 'demo' }] },
      { origin, 'x-csrf-token': admin.csrf },
    );
    expect((await signIn('carol')).answer.status).toBe(303);
  });
});
