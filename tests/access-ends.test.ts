/**
 * Access that ends when an Admin says so, through the real HTTP interface of a password
 * installation: a password reset, a disable (even followed by an enable), a delete and re-create,
 * a demotion and an explicit "end sign-ins" each take effect on the person's next request — for
 * browser sessions, CLI access tokens and CLI refresh tokens alike.
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
  pkce,
  testPasswordCost,
  tokenRequest,
  useTestStack,
} from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';

let stack: Stack;
let admin: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Password }, async (started) => {
  stack = started.stack;
  admin = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await started.token('access-admin', 'admin')}`,
  });
});

const redirectUri = 'http://127.0.0.1:53682/callback';
const developer = [{ role: 'developer', project: 'demo', repository: null }];
const viewer = [{ role: 'viewer', project: 'demo', repository: null }];

async function createPerson(username: string, grants = developer) {
  const saved = await admin.put(`/v1/users/${username}`, { grants, password: `${username}-first-password` });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  return saved.body;
}

/** A browser session and a CLI sign-in of the same person, each with what it authenticates. */
async function signedIn(username: string, password = `${username}-first-password`) {
  const browser = new Browser();
  const request = pkce();
  const page = await browser.follow(await browser.get(authorizeUrl(stack.apiUrl, redirectUri, request)));
  const form = formOf(page);
  const posted = await browser.post(form.action, { ...form.fields, username, password });
  expect(posted.status).toBe(303);
  const back = await answerConsent(browser, await browser.follow(posted));
  const tokens = await tokenRequest(stack.apiUrl, {
    grant_type: 'authorization_code',
    code: new URL(back.location ?? '').searchParams.get('code') ?? '',
    redirect_uri: redirectUri,
    code_verifier: request.verifier,
  });
  expect(tokens.status).toBe(200);
  return {
    session: httpClient(stack.apiUrl, { cookie: browser.cookieHeader() }),
    cli: httpClient(stack.apiUrl, { authorization: `Bearer ${tokens.body.access_token}` }),
    refresh: () =>
      tokenRequest(stack.apiUrl, { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token }),
  };
}

/**
 * A 401 with the body any refused credential gets (that of no credential at all, the request id
 * aside), whose challenge tells whoever holds the ended credential what happened.
 */
async function expectSignInEnded(client: HttpClient) {
  const answer = await client.get('/v1/auth/identity');
  const { instance: _, ...body } = answer.body;
  const { instance: __, ...anonymous } = (await httpClient(stack.apiUrl).get('/v1/auth/identity')).body;
  expect(answer.status).toBe(401);
  expect(body).toEqual({ ...anonymous, code: 'unauthenticated' });
  expect(answer.headers.get('www-authenticate')).toBe(
    'Bearer error="invalid_token", error_description="This sign-in was ended (signed out, by an Admin, or by a password change, a disable or a deletion); sign in again (svc auth login)."',
  );
}

async function expectEnded(access: Awaited<ReturnType<typeof signedIn>>) {
  await expectSignInEnded(access.session);
  await expectSignInEnded(access.cli);
  const refreshed = await access.refresh();
  expect(refreshed.status).toBe(400);
  expect(refreshed.body.error).toBe('invalid_grant');
}

async function expectWorking(access: Awaited<ReturnType<typeof signedIn>>, subject: string) {
  expect((await access.session.get('/v1/auth/identity')).body.subject).toBe(subject);
  expect((await access.cli.get('/v1/auth/identity')).body.subject).toBe(subject);
}

describe('an Admin ending a person’s access', () => {
  it('a password reset ends every session and CLI sign-in at the next request', async () => {
    await createPerson('reset-me');
    const before = await signedIn('reset-me');
    await expectWorking(before, 'user:reset-me');
    const reset = await admin.put('/v1/users/reset-me', {
      grants: developer,
      password: 'reset-me-new-password',
    });
    expect(reset.status).toBe(200);
    await expectEnded(before);
    await expectWorking(await signedIn('reset-me', 'reset-me-new-password'), 'user:reset-me');
  });

  it('a disable ends them, and a later enable does not bring them back', async () => {
    await createPerson('pause-me');
    const before = await signedIn('pause-me');
    expect((await admin.put('/v1/users/pause-me', { grants: developer, disabled: true })).status).toBe(200);
    await expectEnded(before);
    expect((await admin.put('/v1/users/pause-me', { grants: developer, disabled: false })).status).toBe(200);
    await expectEnded(before);
    await expectWorking(await signedIn('pause-me'), 'user:pause-me');
  });

  it('a name deleted and created again is a new person: the old sign-ins are not handed over', async () => {
    const first = await createPerson('reuse-me');
    const before = await signedIn('reuse-me');
    expect((await admin.delete('/v1/users/reuse-me')).status).toBe(204);
    const second = await createPerson('reuse-me');
    expect(second.id).not.toBe(first.id);
    await expectEnded(before);
  });

  it('a demotion holds at the next request, even for a CLI access token issued before it', async () => {
    await createPerson('demote-me');
    const { cli, session } = await signedIn('demote-me');
    const create = (name: string) =>
      cli.post('/v1/compositions', { project: 'demo', baseline: 'staging', name, overrides: {} });
    expect((await create('before-demotion')).status).toBe(202);
    expect((await admin.put('/v1/users/demote-me', { grants: viewer })).status).toBe(200);
    const refused = await create('after-demotion');
    expect(refused.status).toBe(403);
    expect((await cli.get('/v1/compositions')).status).toBe(200);
    expect((await session.get('/v1/auth/identity')).body.grants).toEqual(viewer);
  });

  it('lists a person’s sign-ins, ends one of them, then all of them', async () => {
    await createPerson('list-me');
    const access = await signedIn('list-me');
    const listed = await admin.get('/v1/users/list-me/sign-ins');
    expect(listed.status).toBe(200);
    const kinds = listed.body.items.map((item: { kind: string }) => item.kind).sort();
    expect(kinds).toEqual(['browser_session', 'cli']);
    const cli = listed.body.items.find((item: { kind: string }) => item.kind === 'cli');
    expect(cli).toMatchObject({ client_id: 'svc-cli' });
    expect((await admin.delete(`/v1/users/list-me/sign-ins/${cli.id}`)).status).toBe(204);
    await expectSignInEnded(access.cli);
    expect((await access.refresh()).body.error).toBe('invalid_grant');
    expect((await access.session.get('/v1/auth/identity')).status).toBe(200);
    const left = await admin.get('/v1/users/list-me/sign-ins');
    expect(left.body.items.map((item: { kind: string }) => item.kind)).toEqual(['browser_session']);

    expect((await admin.delete('/v1/users/list-me/sign-ins')).status).toBe(204);
    await expectSignInEnded(access.session);
    expect((await admin.get('/v1/users/list-me/sign-ins')).body.items).toEqual([]);
    const audit = await admin.get('/v1/audit-events?limit=5');
    expect(audit.body.items.map((event: { action: string }) => event.action)).toContain(
      'user.sign_ins_ended',
    );
  });

  it('answers 404 for a sign-in of someone else, an unknown one, or an unknown person', async () => {
    await createPerson('owner-a');
    await createPerson('owner-b');
    await signedIn('owner-a');
    const other = (await admin.get('/v1/users/owner-a/sign-ins')).body.items[0];
    expect((await admin.delete(`/v1/users/owner-b/sign-ins/${other.id}`)).status).toBe(404);
    expect((await admin.delete('/v1/users/owner-b/sign-ins/ses-nothing')).status).toBe(404);
    expect((await admin.get('/v1/users/nobody-here/sign-ins')).status).toBe(404);
    expect((await admin.delete('/v1/users/nobody-here/sign-ins')).status).toBe(404);
    expect((await admin.get('/v1/users/owner-a/sign-ins')).body.items).toHaveLength(2);
  });
});

describe('passwords', () => {
  let people: Auth.UserStore;
  beforeAll(() => {
    people = stack.stores.users;
  });

  // The installation's cost is OWASP's unless told otherwise (the unit tests); this stack's is testPasswordCost.
  it('are rehashed at the installation’s cost at the next successful sign-in of an older, cheaper hash', async () => {
    const { scryptSync, randomBytes } = await import('node:crypto');
    const salt = randomBytes(16);
    const old = scryptSync('old-cost-password', salt, 32, { N: 2 ** 10, r: 8, p: 1 });
    const created = await people.create({
      id: Auth.newUserId(new Date()),
      username: 'old-hash',
      grants: developer as Auth.Grant[],
      password_hash: ['scrypt', 2 ** 10, 8, 1, salt.toString('base64url'), old.toString('base64url')].join(
        '$',
      ),
      disabled: false,
      credentials_epoch: 0,
      oidc_subject: null,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    expect(created).toBe(true);
    const access = await signedIn('old-hash', 'old-cost-password');
    expect((await people.get('old-hash'))?.password_hash).toMatch(`scrypt$${testPasswordCost.N}$8$1$`);
    // A rehash is not a password change: the sign-in it happened in goes on.
    await expectWorking(access, 'user:old-hash');
    await expectWorking(await signedIn('old-hash', 'old-cost-password'), 'user:old-hash');
  });
});

describe('machine token names', () => {
  it('are unique among live tokens: a duplicate is 409 until the first is revoked', async () => {
    const body = { name: 'ci-deploy', grants: developer };
    const first = await admin.post('/v1/tokens', body);
    expect(first.status).toBe(201);
    const again = await admin.post('/v1/tokens', body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'name_taken', errors: [{ path: '/name' }] });
    expect((await admin.delete(`/v1/tokens/${first.body.id}`)).status).toBe(200);
    expect((await admin.post('/v1/tokens', body)).status).toBe(201);
  });
});
