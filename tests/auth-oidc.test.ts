/**
 * oidc mode end to end against a real OpenID provider (oidc-provider on loopback): the service's
 * authorization endpoint sends the browser to the provider, the person signs in there, the
 * provider's groups become grants, and the CLI gets its tokens as in password mode.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import {
  answerConsent,
  authorizeUrl,
  Browser,
  formOf,
  type HttpClient,
  httpClient,
  localUsers,
  pkce,
  type TestClock,
  testClock,
  tokenRequest,
  useTestStack,
} from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

/** mallory's provider account claims alice's name: a claim anyone may edit at many providers. */
const mallory = {
  username: 'mallory',
  password: 'mallory-local-password',
  group: 'demo-viewers',
  grants: [{ role: 'viewer', project: 'demo', repository: null }] as Auth.Grant[],
  claimedName: 'alice',
};

/** Known to the provider, created in the service by an Admin before his first sign-in. */
const dave = { ...mallory, username: 'dave', password: 'dave-local-password', claimedName: 'dave' };

/** People whose groups, or whole account, an administrator of the provider changes. */
const changing = ['erin', 'frank', 'gina', 'hugo'].map((name) => ({
  username: name,
  password: `${name}-local-password`,
  group: name === 'gina' || name === 'hugo' ? 'svc-admins' : 'demo-developers',
  grants: (name === 'gina' || name === 'hugo'
    ? [{ role: 'admin', project: '*', repository: null }]
    : [{ role: 'developer', project: 'demo', repository: null }]) as Auth.Grant[],
}));

const clock: TestClock = testClock();
let stack: Stack;
let admin: HttpClient;
useTestStack(
  {
    authMode: Auth.AuthMode.Oidc,
    clock,
    auth: {
      settings: { limits: { sign_in_starts_per_address_per_5_minutes: 20 } },
      users: [...localUsers, mallory, dave, ...changing],
    },
  },
  async (started) => {
    stack = started.stack;
    admin = httpClient(stack.apiUrl, {
      authorization: `Bearer ${await started.token('oidc-admin', 'admin')}`,
    });
  },
);

const redirectUri = 'http://[::1]:49152/done';

async function signInAtProvider(browser: Browser, start: string, username: string, password: string) {
  const toProvider = await browser.get(start);
  const providerOrigin = new URL(stack.identityProvider?.issuer ?? '').origin;
  const page = await browser.follow(
    toProvider,
    (url) => !url.startsWith(providerOrigin) && !url.includes('/auth/login'),
  );
  expect(new URL(page.url).origin).toBe(providerOrigin);
  const form = formOf(page);
  return browser.post(form.action, { ...form.fields, login: username, password });
}

describe('oidc mode', () => {
  it('signs the CLI in through the identity provider and maps its groups to grants', async () => {
    const browser = new Browser();
    const request = pkce();
    const posted = await signInAtProvider(
      browser,
      authorizeUrl(stack.apiUrl, redirectUri, request),
      'bob',
      'bob-local-password',
    );
    const back = await answerConsent(browser, await browser.follow(posted));
    expect(back.location?.startsWith(redirectUri)).toBe(true);
    const callback = new URL(back.location ?? '');
    expect(callback.searchParams.get('state')).toBe(request.state);
    const tokens = await tokenRequest(stack.apiUrl, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: request.verifier,
    });
    expect(tokens.status).toBe(200);
    const api = httpClient(stack.apiUrl, { authorization: `Bearer ${tokens.body.access_token}` });
    expect((await api.get('/v1/auth/identity')).body).toMatchObject({
      subject: 'user:bob',
      kind: 'user',
      grants: [{ role: 'developer', project: 'demo', repository: null }],
      mode: 'oidc',
    });
    const refreshed = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.body.refresh_token,
    });
    expect(refreshed.status).toBe(200);
  });

  it('refuses a wrong password at the provider and gives no session', async () => {
    const browser = new Browser();
    const answer = await signInAtProvider(
      browser,
      `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`,
      'alice',
      'not-her-password',
    );
    expect(answer.status).toBe(401);
    expect([...browser.cookies.keys()]).not.toContain('__Host-svc_session');
  });

  it('gives a browser session whose grants come from the groups claim', async () => {
    const browser = new Browser();
    const posted = await signInAtProvider(
      browser,
      `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`,
      'alice',
      'alice-local-password',
    );
    const landed = await browser.follow(posted);
    expect(landed.url).toBe(`${stack.apiUrl}/auth/config`);
    const config = JSON.parse(landed.text);
    expect(config).toMatchObject({ mode: 'oidc', sign_in: true, session: { subject: 'user:alice' } });
    const api = httpClient(stack.apiUrl, { cookie: browser.cookieHeader() });
    expect((await api.get('/v1/auth/identity')).body.grants).toEqual([
      { role: 'admin', project: '*', repository: null },
    ]);
    expect((await api.get('/v1/tokens')).status).toBe(200);
  });

  it('refuses a callback that does not belong to a sign-in this browser started', async () => {
    const browser = new Browser();
    const forged = await browser.get(`${stack.apiUrl}/auth/callback?code=abc&state=def`);
    expect(forged.status).toBe(400);
    expect([...browser.cookies.keys()]).not.toContain('__Host-svc_session');
  });

  it.each(['/\t/evil.example/', '//evil.example/', '/%2F/evil.example/', 'https://evil.example/'])(
    'brings the browser back to the console home, not to %j',
    async (returnTo) => {
      const browser = new Browser();
      const posted = await signInAtProvider(
        browser,
        `${stack.apiUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`,
        'carol',
        'carol-local-password',
      );
      const callback = await browser.follow(posted, (url) => url.startsWith(`${stack.apiUrl}/console/`));
      expect(callback.location).toBe(`${stack.apiUrl}/console/compositions`);
    },
  );

  it('bounds the sign-ins one client address may start (each keeps a pending item)', async () => {
    const from = (address: string) => new Browser({ localAddress: address });
    const start = (browser: Browser) => browser.get(`${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`);
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await start(from('127.0.0.2'))).status);
    expect(statuses).toEqual([...Array(20).fill(302), 429]);
    const refused = await start(from('127.0.0.2'));
    expect(refused.text).toContain('Too many sign-ins started from your address');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await start(from('127.0.0.3'))).status).toBe(302);
  });

  it('knows people by the provider’s subject: claiming another person’s name gets their name nothing', async () => {
    const identityOf = async (username: string, password: string) => {
      const browser = new Browser();
      const posted = await signInAtProvider(
        browser,
        `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`,
        username,
        password,
      );
      await browser.follow(posted);
      return (await httpClient(stack.apiUrl, { cookie: browser.cookieHeader() }).get('/v1/auth/identity'))
        .body;
    };
    expect((await identityOf('alice', 'alice-local-password')).subject).toBe('user:alice');
    const impostor = await identityOf('mallory', 'mallory-local-password');
    expect(impostor.subject).toMatch(/^user:alice-[0-9a-f]{8}$/);
    expect(impostor.grants).toEqual([{ role: 'viewer', project: 'demo', repository: null }]);
    const alice = await identityOf('alice', 'alice-local-password');
    expect(alice).toMatchObject({ subject: 'user:alice', grants: [{ role: 'admin', project: '*' }] });
  });

  it('lets an Admin create a person by their provider subject before their first sign-in', async () => {
    const developer = [{ role: 'developer', project: 'demo', repository: null }];
    const missing = await admin.put('/v1/users/david', { grants: developer });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      { path: '/oidc_subject', message: expect.stringContaining('oidc_subject') },
    ]);
    const taken = await admin.put('/v1/users/bobby', { grants: developer, oidc_subject: 'bob' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('name_taken');
    const saved = await admin.put('/v1/users/david', { grants: developer, oidc_subject: 'dave' });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ username: 'david', oidc_subject: 'dave', has_password: false });

    const browser = new Browser();
    const posted = await signInAtProvider(
      browser,
      `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`,
      'dave',
      dave.password,
    );
    await browser.follow(posted);
    const identity = (
      await httpClient(stack.apiUrl, { cookie: browser.cookieHeader() }).get('/v1/auth/identity')
    ).body;
    expect(identity.subject).toBe('user:david');
    expect(identity.grants).toEqual(
      expect.arrayContaining([
        { role: 'viewer', project: 'demo', repository: null },
        { role: 'developer', project: 'demo', repository: null },
      ]),
    );
  });
});

describe('grants that follow the identity provider', () => {
  /** `svc auth login` as `username`: the CLI's tokens. */
  async function cliSignIn(username: string) {
    const browser = new Browser();
    const request = pkce();
    const posted = await signInAtProvider(
      browser,
      authorizeUrl(stack.apiUrl, redirectUri, request),
      username,
      `${username}-local-password`,
    );
    const back = await answerConsent(browser, await browser.follow(posted));
    const tokens = await tokenRequest(stack.apiUrl, {
      grant_type: 'authorization_code',
      code: new URL(back.location ?? '').searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: request.verifier,
    });
    expect(tokens.status).toBe(200);
    return tokens.body as { access_token: string; refresh_token: string };
  }
  const grantsWith = async (accessToken: string) => {
    const answer = await httpClient(stack.apiUrl, { authorization: `Bearer ${accessToken}` }).get(
      '/v1/auth/identity',
    );
    return answer.status === 200 ? answer.body.grants : answer.status;
  };
  const provider = () => {
    if (!stack.identityProvider) throw new Error('no identity provider');
    return stack.identityProvider;
  };

  it('a CLI refresh reads the person’s groups again: one removed at the provider is gone at once', async () => {
    const tokens = await cliSignIn('erin');
    expect(await grantsWith(tokens.access_token)).toEqual([
      { role: 'developer', project: 'demo', repository: null },
    ]);
    provider().setGroups('erin', []);
    const refreshed = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refreshed.status).toBe(200);
    expect(await grantsWith(refreshed.body.access_token)).toEqual([]);
    expect(
      (
        await httpClient(stack.apiUrl, { authorization: `Bearer ${refreshed.body.access_token}` }).get(
          '/v1/projects/demo/components',
        )
      ).status,
    ).toBe(404);
  });

  it('a person deleted at the provider is refused at the next refresh, and the sign-in ends', async () => {
    const tokens = await cliSignIn('frank');
    provider().removeAccount('frank');
    const refused = await tokenRequest(stack.apiUrl, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
    // The access token it had goes with it.
    expect(await grantsWith(tokens.access_token)).toBe(401);
  });

  it('a browser session reads them again within 15 minutes, and ends when the provider refuses', async () => {
    const sessionOf = async (username: string) => {
      const browser = new Browser();
      const posted = await signInAtProvider(
        browser,
        `${stack.apiUrl}/auth/login?return_to=%2Fauth%2Fconfig`,
        username,
        `${username}-local-password`,
      );
      await browser.follow(posted);
      return httpClient(stack.apiUrl, { cookie: browser.cookieHeader() });
    };
    const gina = await sessionOf('gina');
    const hugo = await sessionOf('hugo');
    expect((await gina.get('/v1/tokens')).status).toBe(200);
    provider().setGroups('gina', ['demo-viewers']);
    provider().removeAccount('hugo');
    clock.advance(15 * 60);
    expect((await gina.get('/v1/auth/identity')).body.grants).toEqual([
      { role: 'viewer', project: 'demo', repository: null },
    ]);
    expect((await gina.get('/v1/tokens')).status).toBe(403);
    expect((await hugo.get('/v1/auth/identity')).status).toBe(401);
  });
});
