import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import type { Grant } from './access.ts';
import { AuthMode } from './identity.ts';
import type { User } from './model.ts';
import { passwordHashing } from './passwords.ts';
import type { SignInStore, UserStore } from './ports.ts';
import { csrfTokenOf, newSecret, pkceMatches, SecretPrefix, sameSecret } from './secrets.ts';
import {
  accessTokenIdentity,
  exchangeCode,
  grantsFromClaims,
  isLoopbackRedirect,
  issueCode,
  OAuthError,
  refresh,
  type SignInDeps,
  startSession,
} from './sign-in.ts';
import { checkPassword, type PasswordDeps } from './users.ts';

describe('isLoopbackRedirect', () => {
  it('takes only http loopback IP literals with a port (RFC 8252 7.3)', () => {
    expect(isLoopbackRedirect('http://127.0.0.1:4000/callback')).toBe(true);
    expect(isLoopbackRedirect('http://[::1]:4000/')).toBe(true);
    for (const uri of [
      'http://localhost:4000/callback',
      'http://127.0.0.1/callback',
      'https://127.0.0.1:4000/callback',
      'http://127.0.0.1:4000/callback?x=1',
      'http://user@127.0.0.1:4000/',
      'http://127.0.0.1.evil.com:4000/',
      'not a url',
    ]) {
      expect(isLoopbackRedirect(uri), uri).toBe(false);
    }
  });
});

describe('secrets', () => {
  it('checks PKCE S256 verifiers against their challenge', () => {
    const verifier = 'v'.repeat(43);
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(`${verifier}x`, challenge)).toBe(false);
    expect(pkceMatches('short', createHash('sha256').update('short').digest('base64url'))).toBe(false);
  });

  it('derives a CSRF token per session that only its secret gives', () => {
    const a = newSecret(SecretPrefix.Session);
    const b = newSecret(SecretPrefix.Session);
    expect(csrfTokenOf(a)).toBe(csrfTokenOf(a));
    expect(csrfTokenOf(a)).not.toBe(csrfTokenOf(b));
    expect(sameSecret(csrfTokenOf(a), csrfTokenOf(a))).toBe(true);
    expect(sameSecret(csrfTokenOf(a), '')).toBe(false);
  });

  const passwords = passwordHashing();

  it('hashes passwords with scrypt at OWASP’s cost and a salt of their own', async () => {
    const one = await passwords.hash('correct horse battery');
    const two = await passwords.hash('correct horse battery');
    expect(one).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(one).not.toBe(two);
    expect(await passwords.verify('correct horse battery', one)).toBe(true);
    expect(await passwords.verify('correct horse batterY', one)).toBe(false);
  });

  it('refuses a name nobody has after a real check, against one decoy of its own cost', async () => {
    const cheap = passwordHashing({ N: 2 ** 12, r: 8, p: 1 });
    const verify = vi.spyOn(cheap, 'verify');
    await cheap.verifyNobody('first guess');
    await cheap.verifyNobody('second guess');
    const decoy = verify.mock.calls[0]?.[1];
    expect(decoy).toMatch(/^scrypt\$4096\$/);
    expect(verify.mock.calls).toEqual([
      ['first guess', decoy],
      ['second guess', decoy],
    ]);
  });

  /** The scrypt work a sign-in check did: the N of every hash verified, summed (r and p are fixed). */
  async function workOf(check: () => Promise<unknown>, hashing: ReturnType<typeof passwordHashing>) {
    const verify = vi.spyOn(hashing, 'verify');
    await check();
    const work = verify.mock.calls.reduce((sum, [, stored]) => sum + Number(stored.split('$')[1]), 0);
    verify.mockRestore();
    return work;
  }

  it('does the current cost’s work for every name: a known one, one with an older hash, nobody', async () => {
    const current = passwordHashing({ N: 2 ** 12, r: 8, p: 1 });
    const older = await passwordHashing({ N: 2 ** 10, r: 8, p: 1 }).hash('correct horse battery');
    const today = await current.hash('correct horse battery');
    const people = new Map<string, User>([
      ['old', { ...bob, username: 'old', password_hash: older }],
      ['new', { ...bob, username: 'new', password_hash: today }],
    ]);
    const deps = {
      users: { get: async (name: string) => people.get(name) ?? null, setPasswordHash: async () => {} },
      passwords: current,
    } as unknown as PasswordDeps;
    for (const [name, password] of [
      ['old', 'wrong guess'],
      ['old', 'correct horse battery'],
      ['new', 'wrong guess'],
      ['nobody', 'wrong guess'],
    ] as const) {
      const work = await workOf(() => checkPassword(deps, name, password), current);
      expect(work, `${name} / ${password}`).toBe(2 ** 12);
    }
    // A dearer hash (the cost was lowered) is checked at its own cost, with no decoy on top.
    const dearer = await passwordHashing({ N: 2 ** 13, r: 8, p: 1 }).hash('x');
    expect(await workOf(() => current.check('y', dearer), current)).toBe(2 ** 13);
  });

  it('still verifies an older, cheaper hash, and marks it for a rehash', async () => {
    // 'correct horse battery' at N = 2^15, as hashes were stored before the cost went up.
    const older =
      'scrypt$32768$8$1$c2FsdHNhbHRzYWx0c2FsdA$' +
      (await import('node:crypto'))
        .scryptSync('correct horse battery', Buffer.from('c2FsdHNhbHRzYWx0c2FsdA', 'base64url'), 32, {
          N: 2 ** 15,
          r: 8,
          p: 1,
          maxmem: 64 * 1024 * 1024,
        })
        .toString('base64url');
    expect(await passwords.verify('correct horse battery', older)).toBe(true);
    expect(passwords.needsRehash(older)).toBe(true);
    expect(passwords.needsRehash(await passwords.hash('correct horse battery'))).toBe(false);
  });

  it('hashes at the cost it is given, and marks a hash of another cost, dearer or cheaper, for a rehash', async () => {
    const cheap = passwordHashing({ N: 2 ** 12, r: 8, p: 1 });
    const hash = await cheap.hash('correct horse battery');
    expect(hash).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect(await passwords.verify('correct horse battery', hash)).toBe(true);
    expect(passwords.needsRehash(hash)).toBe(true);
    expect(cheap.needsRehash(await passwords.hash('correct horse battery'))).toBe(true);
    expect(cheap.needsRehash(hash)).toBe(false);
  });

  it('refuses a stored hash whose cost is out of bounds rather than spending memory on it', async () => {
    expect(await passwords.verify('x', 'scrypt$1073741824$8$1$c2FsdA$aGFzaA')).toBe(false);
    expect(await passwords.verify('x', 'scrypt$abc$8$1$c2FsdA$aGFzaA')).toBe(false);
  });
});

describe('grantsFromClaims', () => {
  const mapping = {
    claim: 'groups',
    values: { admins: [{ role: 'admin', project: '*', repository: null }] as Grant[] },
    default_grants: [{ role: 'viewer', project: 'demo', repository: null }] as Grant[],
  };

  it('gives the grants of each known group, plus the defaults', () => {
    expect(grantsFromClaims({ groups: ['admins', 'unknown'] }, mapping)).toEqual([
      { role: 'viewer', project: 'demo', repository: null },
      { role: 'admin', project: '*', repository: null },
    ]);
    expect(grantsFromClaims({ groups: 'admins' }, mapping)).toHaveLength(2);
    expect(grantsFromClaims({ groups: ['__proto__'] }, mapping)).toEqual(mapping.default_grants);
    expect(grantsFromClaims({}, mapping)).toEqual(mapping.default_grants);
  });
});

const bob: User = {
  id: 'usr-bob',
  username: 'bob',
  grants: [{ role: 'developer', project: 'demo', repository: null }],
  password_hash: null,
  disabled: false,
  credentials_epoch: 0,
  oidc_subject: null,
  created_at: '',
  updated_at: '',
};

/** The sign-in store's contract, in memory: enough to exercise the rules without DynamoDB. */
function memoryDeps(now: { at: Date }): SignInDeps {
  const items = new Map<string, Record<string, unknown>>();
  const users = new Map<string, User>([['bob', bob]]);
  const live = (key: string) => {
    const item = items.get(key) as { expires_at?: string } | undefined;
    return item && (!item.expires_at || Date.parse(item.expires_at) > now.at.getTime()) ? item : null;
  };
  const take = (key: string) => {
    const item = live(key);
    items.delete(key);
    return item;
  };
  const store: SignInStore = {
    putSession: async (hash, session) => void items.set(`s${hash}`, { ...session }),
    getSession: async (hash) => live(`s${hash}`) as never,
    touchSession: async (hash, idle) =>
      void Object.assign(items.get(`s${hash}`) ?? {}, { idle_expires_at: idle }),
    revokeSession: async (hash) => void Object.assign(items.get(`s${hash}`) ?? {}, { revoked_at: 'x' }),
    putCode: async (hash, code) => void items.set(`c${hash}`, { ...code }),
    takeCode: async (hash) => take(`c${hash}`) as never,
    putGrant: async (grant) => void items.set(`g${grant.id}`, { ...grant }),
    getGrant: async (id) => (items.get(`g${id}`) ?? null) as never,
    revokeGrant: async (id) => void Object.assign(items.get(`g${id}`) ?? {}, { revoked_at: 'x' }),
    putRefresh: async (hash, entry) => void items.set(`r${hash}`, { ...entry }),
    async useRefresh(hash) {
      const entry = live(`r${hash}`) as { grant_id: string; used_at?: string } | null;
      if (!entry) return null;
      if (entry.used_at) return { outcome: 'reused', grant_id: entry.grant_id };
      entry.used_at = now.at.toISOString();
      return { outcome: 'fresh', grant_id: entry.grant_id };
    },
    putAccess: async (hash, token) => void items.set(`a${hash}`, { ...token }),
    getAccess: async (hash) => live(`a${hash}`) as never,
    putPending: async (hash, pending) => void items.set(`p${hash}`, { ...pending }),
    takePending: async (hash) => take(`p${hash}`) as never,
    listSignIns: async () => ({ items: [], next_cursor: null }),
    revokeSignIn: async () => false,
    putProviderSignIn: async () => {},
    getProviderSignIn: async () => null,
    replaceProviderSignIn: async () => false,
  };
  const userStore: UserStore = {
    get: async (name) => users.get(name) ?? null,
    getBySubject: async () => null,
    create: async (user) => !users.has(user.username) && Boolean(users.set(user.username, user)),
    replace: async (user) => Boolean(users.set(user.username, user)),
    endSignIns: async (name) => {
      const user = users.get(name);
      if (user) users.set(name, { ...user, credentials_epoch: user.credentials_epoch + 1 });
      return Boolean(user);
    },
    setPasswordHash: async () => {},
    delete: async (name) => users.delete(name),
    list: async () => ({ items: [...users.values()], next_cursor: null }),
  };
  return { signIns: store, users: userStore, clock: { now: () => now.at }, mode: AuthMode.Password };
}

describe('the CLI sign-in', () => {
  const verifier = 'w'.repeat(64);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const redirect = 'http://127.0.0.1:5000/callback';

  async function signedIn(now: { at: Date }) {
    const deps = memoryDeps(now);
    const { session } = await startSession(deps, bob, null);
    const code = await issueCode(deps, session, {
      client_id: 'svc-cli',
      redirect_uri: redirect,
      code_challenge: challenge,
    });
    const tokens = await exchangeCode(deps, {
      code,
      redirect_uri: redirect,
      client_id: 'svc-cli',
      code_verifier: verifier,
    });
    return { deps, code, tokens };
  }

  it('exchanges a code once, for tokens carrying the user record’s grants', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, code, tokens } = await signedIn(now);
    const identity = await accessTokenIdentity(deps, tokens.access_token);
    expect(identity).toMatchObject({ subject: 'user:bob', kind: 'user', author: 'user:bob' });
    expect(identity?.grants).toEqual([{ role: 'developer', project: 'demo', repository: null }]);
    await expect(
      exchangeCode(deps, { code, redirect_uri: redirect, client_id: 'svc-cli', code_verifier: verifier }),
    ).rejects.toBeInstanceOf(OAuthError);
  });

  it('rotates refresh tokens and revokes the family on a replay', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, tokens } = await signedIn(now);
    const next = await refresh(deps, { refresh_token: tokens.refresh_token, client_id: 'svc-cli' });
    await expect(
      refresh(deps, { refresh_token: tokens.refresh_token, client_id: 'svc-cli' }),
    ).rejects.toThrow(/already used/);
    expect(await accessTokenIdentity(deps, next.access_token)).toBeNull();
    await expect(refresh(deps, { refresh_token: next.refresh_token, client_id: 'svc-cli' })).rejects.toThrow(
      /revoked or has expired/,
    );
  });

  it('keeps refreshing for 30 days after the sign-in, not more', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, tokens } = await signedIn(now);
    now.at = new Date('2030-01-30T23:00:00Z');
    const late = await refresh(deps, { refresh_token: tokens.refresh_token, client_id: 'svc-cli' });
    expect(late.refresh_token_expires_in).toBeLessThanOrEqual(3600);
    now.at = new Date('2030-01-31T00:00:01Z');
    await expect(
      refresh(deps, { refresh_token: late.refresh_token, client_id: 'svc-cli' }),
    ).rejects.toThrow();
  });

  it('stops a user who was deleted at their next refresh', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, tokens } = await signedIn(now);
    await deps.users.delete('bob');
    await expect(
      refresh(deps, { refresh_token: tokens.refresh_token, client_id: 'svc-cli' }),
    ).rejects.toThrow(/no longer sign in/);
  });

  it('stops every token of a sign-in once the person’s credentials epoch moves', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, tokens } = await signedIn(now);
    expect(await accessTokenIdentity(deps, tokens.access_token)).not.toBeNull();
    await deps.users.endSignIns('bob', '');
    expect(await accessTokenIdentity(deps, tokens.access_token)).toBeNull();
    await expect(
      refresh(deps, { refresh_token: tokens.refresh_token, client_id: 'svc-cli' }),
    ).rejects.toThrow(/no longer sign in/);
  });

  it('gives a name created again nothing of the person who had it', async () => {
    const now = { at: new Date('2030-01-01T00:00:00Z') };
    const { deps, tokens } = await signedIn(now);
    await deps.users.delete('bob');
    await deps.users.create({ ...bob, id: 'usr-another-bob' });
    expect(await accessTokenIdentity(deps, tokens.access_token)).toBeNull();
  });
});
