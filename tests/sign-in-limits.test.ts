/**
 * Password sign-in that cannot be turned against its users, over HTTP from several client
 * addresses (127.0.0.x on loopback): only failures count, per address and name with an hourly cap
 * and per address across names; guesses at one name from many addresses meet a per-name ceiling
 * that the owner's own browser passes; a stranger cannot lock the owner out; malformed names are refused
 * before anything is read or counted; return addresses never leave the service.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { Browser, formOf, localUsers, type TestClock, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

const erin = {
  username: 'erin',
  password: 'erin-local-password',
  group: 'demo-viewers',
  grants: [{ role: 'viewer', project: 'demo', repository: null }] as Auth.Grant[],
};

// On an hour boundary, so each test's windows are the ones it advances through.
const clock: TestClock = testClock(new Date('2030-01-01T00:00:00Z'));
let stack: Stack;
useTestStack(
  {
    authMode: Auth.AuthMode.Password,
    clock,
    auth: {
      settings: {
        limits: {
          sign_ins_per_5_minutes: 3,
          failed_sign_ins_per_address_per_5_minutes: 6,
          failed_sign_ins_per_name_per_5_minutes: 4,
        },
      },
      // Guessed at by a botnet in one test: the others sign the seeded people in unhindered.
      users: [...localUsers, { ...erin }],
    },
  },
  (started) => {
    stack = started.stack;
  },
);

const password = (username: string) => `${username}-local-password`;

async function attempt(from: string, username: string, secret: string, returnTo = '/auth/config') {
  const browser = new Browser({ localAddress: from });
  const answer = await browser.post(`${stack.apiUrl}/auth/login`, {
    username,
    password: secret,
    return_to: returnTo,
  });
  return { browser, answer };
}

async function statuses(from: string, username: string, secret: string, times: number) {
  const seen: number[] = [];
  for (let i = 0; i < times; i++) seen.push((await attempt(from, username, secret)).answer.status);
  return seen;
}

describe('failed sign-ins', () => {
  it('never let a stranger stop the owner signing in from another address', async () => {
    expect(await statuses('127.0.0.2', 'bob', 'a-guess-at-bobs', 4)).toEqual([401, 401, 401, 429]);
    // Even the right password waits out the window from the stranger's address…
    expect((await attempt('127.0.0.2', 'bob', password('bob'))).answer.status).toBe(429);
    // …while bob, elsewhere, signs in.
    const owner = await attempt('127.0.0.1', 'bob', password('bob'));
    expect(owner.answer.status).toBe(303);
    expect(owner.answer.headers.get('set-cookie')).toMatch(/^__Host-svc_session=/);
  });

  it('count no success', async () => {
    expect(await statuses('127.0.0.3', 'carol', password('carol'), 5)).toEqual([303, 303, 303, 303, 303]);
  });

  it('from one address across many names are slowed, and only there', async () => {
    const names = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay'];
    for (const name of names)
      expect((await attempt('127.0.0.4', name, 'spray-password')).answer.status).toBe(401);
    const refused = await attempt('127.0.0.4', 'gus', 'spray-password');
    expect(refused.answer.status).toBe(429);
    expect(refused.answer.text).toContain('failed sign-ins from your address');
    expect(Number(refused.answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await attempt('127.0.0.5', 'gus', 'spray-password')).answer.status).toBe(401);
  });

  it('back off: after three 5-minute allowances the hourly cap holds until the hour ends', async () => {
    expect(await statuses('127.0.0.6', 'alice', 'hourly-guess-1', 4)).toEqual([401, 401, 401, 429]);
    clock.advance(300);
    expect(await statuses('127.0.0.6', 'alice', 'hourly-guess-2', 4)).toEqual([401, 401, 401, 429]);
    clock.advance(300);
    expect(await statuses('127.0.0.6', 'alice', 'hourly-guess-3', 4)).toEqual([401, 401, 401, 429]);
    clock.advance(300);
    const capped = await attempt('127.0.0.6', 'alice', 'hourly-guess-4');
    expect(capped.answer.status).toBe(429);
    expect(Number(capped.answer.headers.get('retry-after'))).toBeGreaterThan(2000);
    clock.advance(3600 - 900);
    expect((await attempt('127.0.0.6', 'alice', password('alice'))).answer.status).toBe(303);
  });

  it('at one name from many addresses meet a growing per-name ceiling, which the owner’s browser passes', async () => {
    // erin signed in on this browser before the guessing began.
    const own = new Browser({ localAddress: '127.0.0.20' });
    const signIn = () =>
      own.post(`${stack.apiUrl}/auth/login`, {
        username: 'erin',
        password: password('erin'),
        return_to: '/',
      });
    expect((await signIn()).status).toBe(303);
    // A botnet: one guess from each address, under every per-address limit.
    let address = 20;
    const guesses = async (count: number) => {
      const seen: number[] = [];
      for (let i = 0; i < count; i++) {
        address += 1;
        seen.push((await attempt(`127.0.0.${address}`, 'erin', `botnet-guess-${address}`)).answer.status);
      }
      return seen;
    };
    expect(await guesses(5)).toEqual([401, 401, 401, 401, 429]);
    const slowed = await attempt('127.0.0.99', 'erin', password('erin'));
    expect(slowed.answer.status).toBe(429);
    expect(slowed.answer.text).toContain(
      'failed sign-ins for this user name from browsers it has not signed in on',
    );
    expect(Number(slowed.answer.headers.get('retry-after'))).toBeGreaterThan(0);
    // The owner's browser is not slowed by strangers' guesses…
    expect((await signIn()).status).toBe(303);
    // …and the delay grows: three 5-minute windows' worth (3 × 4) fill the hour, which then holds.
    clock.advance(300);
    expect(await guesses(5)).toEqual([401, 401, 401, 401, 429]);
    clock.advance(300);
    expect(await guesses(4)).toEqual([401, 401, 401, 401]);
    clock.advance(300);
    const hourly = await attempt('127.0.0.99', 'erin', password('erin'));
    expect(hourly.answer.status).toBe(429);
    expect(Number(hourly.answer.headers.get('retry-after'))).toBeGreaterThan(300);
    expect((await signIn()).status).toBe(303);
  });

  it('refuse a malformed or oversized name before reading or counting anything', async () => {
    for (const name of ['x'.repeat(3000), 'Bob Smith', '../bob', '', 'bob\u0000', 'ünïcode']) {
      const { answer } = await attempt('127.0.0.7', name, 'whatever-password');
      expect(answer.status, name.slice(0, 20)).toBe(401);
      expect(answer.text).toContain('Unknown user name or wrong password.');
    }
    const { answer } = await attempt('127.0.0.7', 'bob', 'x'.repeat(Auth.maxPasswordLength + 1));
    expect(answer.status).toBe(401);
    // Seven refusals above, none counted: the address's limit (6) is untouched.
    expect((await attempt('127.0.0.7', 'nobody', 'whatever-password')).answer.status).toBe(401);
    expect((await attempt('127.0.0.7', 'bob', password('bob'))).answer.status).toBe(303);
  });
});

const home = () => `${stack.apiUrl}/console/compositions`;

const hostile = [
  '/.//evil.example/',
  '/..//evil.example/',
  '/%2e//evil.example/',
  '/console/..//evil.example/',
  '/\t/evil.example/',
  '/\r/evil.example/',
  '/\n/evil.example/',
  '/console\r\nset-cookie: x=1',
  '/\\evil.example/',
  '\\\\evil.example/',
  '//evil.example/',
  '/%2F/evil.example/',
  '/%2f%2fevil.example/',
  '/%5Cevil.example/',
  '/%09/evil.example/',
  'https://evil.example/',
  'http:evil.example',
  'javascript:alert(1)',
];

describe('return addresses', () => {
  it.each(hostile)(
    '%j is replaced by the console home on the sign-in page, after sign-in and after sign-out',
    async (returnTo) => {
      const browser = new Browser({ localAddress: '127.0.0.8' });
      const page = await browser.get(`${stack.apiUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`);
      expect(page.status).toBe(200);
      expect(formOf(page).fields.return_to).toBe('/console/compositions');

      const signedIn = await browser.post(`${stack.apiUrl}/auth/login`, {
        username: 'carol',
        password: password('carol'),
        return_to: returnTo,
      });
      expect(signedIn.status).toBe(303);
      expect(signedIn.location).toBe(home());

      const config = JSON.parse((await browser.get(`${stack.apiUrl}/auth/config`)).text);
      const signedOut = await browser.post(`${stack.apiUrl}/auth/logout`, {
        csrf_token: config.csrf_token,
        return_to: returnTo,
      });
      expect(signedOut.status).toBe(303);
      expect(signedOut.location).toBe(home());
    },
  );

  it('keeps a return address on the service, with its query', async () => {
    const { answer } = await attempt(
      '127.0.0.9',
      'carol',
      password('carol'),
      '/console/compositions?phase=ready',
    );
    expect(answer.location).toBe(`${stack.apiUrl}/console/compositions?phase=ready`);
  });
});
