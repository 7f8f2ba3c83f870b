import { describe, expect, it } from 'vitest';
import { cursors } from '../paging.ts';
import type { User } from './model.ts';
import type { UserStore } from './ports.ts';
import { addressGroup, deviceCookieValue, failedSignInThrottles, isOwnDevice } from './sign-in-limits.ts';

describe('addressGroup', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:aaaa:bbbb:cccc:dddd', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:0:0:0:1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:DB8:1:2::FFFF', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['64:ff9b::198.51.100.1', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
    ['1::2::3', '1::2::3'],
  ])('counts %s as %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });

  it('counts every address of one /64 in the same windows', () => {
    const limits = {
      mutations_per_minute: 1,
      sign_ins_per_5_minutes: 1,
      failed_sign_ins_per_address_per_5_minutes: 1,
      failed_sign_ins_per_name_per_5_minutes: 1,
      sign_in_starts_per_address_per_5_minutes: 1,
      live_compositions_per_project: 1,
    };
    const keys = (address: string) =>
      failedSignInThrottles(limits, address, 'bob', { ownDevice: false }).map((t) => t.key);
    expect(keys('2001:db8:1:2::1')).toEqual(keys('2001:db8:1:2:ffff::9'));
    expect(keys('2001:db8:1:2::1')).not.toEqual(keys('2001:db8:1:3::1'));
    // The per-name ceiling is the same for every address, and absent for the owner's browser.
    const perName = (address: string) => keys(address).filter((k) => !k.includes(addressGroup(address)));
    expect(perName('203.0.113.7')).toEqual(perName('2001:db8:1:3::1'));
    expect(perName('203.0.113.7')).toHaveLength(3);
    expect(failedSignInThrottles(limits, '203.0.113.7', 'bob', { ownDevice: true })).toHaveLength(3);
  });
});

describe('device cookies', () => {
  const seal = cursors('k'.repeat(32));
  const bob = { id: 'usr-1', username: 'bob' } as User;
  const users = (user: User | null) => ({ get: async () => user }) as unknown as UserStore;

  it('name a browser its person signed in on, as long as the name is still that person’s', async () => {
    const cookie = deviceCookieValue(seal, bob);
    expect(await isOwnDevice({ cursors: seal, users: users(bob) }, cookie, 'bob')).toBe(true);
    expect(await isOwnDevice({ cursors: seal, users: users(bob) }, cookie, 'alice')).toBe(false);
    expect(await isOwnDevice({ cursors: seal, users: users({ ...bob, id: 'usr-2' }) }, cookie, 'bob')).toBe(
      false,
    );
    expect(await isOwnDevice({ cursors: seal, users: users(null) }, cookie, 'bob')).toBe(false);
    expect(await isOwnDevice({ cursors: cursors('x'.repeat(32)), users: users(bob) }, cookie, 'bob')).toBe(
      false,
    );
    expect(await isOwnDevice({ cursors: seal, users: users(bob) }, undefined, 'bob')).toBe(false);
    // A cursor this installation sealed for a list is no device cookie.
    expect(
      await isOwnDevice(
        { cursors: seal, users: users(bob) },
        seal.seal({}, { username: 'bob', user_id: 'usr-1' }),
        'bob',
      ),
    ).toBe(false);
  });
});
