/**
 * What slows password guessing without letting a stranger lock a person out: only failures count,
 * and a success counts nothing. They count per client address — per address and name (5 minutes,
 * then an hourly cap: the backoff), and per address across names (a spray of many names from one
 * place) — and per name across every address (a botnet, or a walk through an IPv6 block), with a
 * delay that grows from 5 minutes to an hour to a day. That last ceiling leaves out the browsers
 * the person signed in on before (a sealed device cookie, OWASP's "device cookies"), so strangers'
 * guesses never stop the owner there; a stranger's failures from one address never stop the owner
 * elsewhere either. IPv6 addresses count by their /64, the block one host or customer gets.
 */
import type { Cursors } from '../paging.ts';
import type { Throttle } from './limits.ts';
import type { UserStore } from './ports.ts';
import type { AuthSettings } from './settings.ts';

type Limits = AuthSettings['limits'];

const hourlyMultiple = 3;
/** The per-name ceiling's windows and their multiples of the 5-minute limit: the growing delay. */
const perNameTiers = [
  { windowSeconds: 300, multiple: 1 },
  { windowSeconds: 3600, multiple: 3 },
  { windowSeconds: 86_400, multiple: 12 },
] as const;

const hextet = /^[0-9a-f]{1,4}$/i;

/** The first four groups of an IPv6 address, written out; null when it is not one. */
function ipv6Prefix(address: string): string[] | null {
  const [head = '', tail, extra] = address.split('%')[0]?.toLowerCase().split('::') ?? [];
  if (extra !== undefined) return null;
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) takes two groups' room.
  const width = right.concat(left).reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - width)).fill('0'), ...right];
  const prefix = groups.slice(0, 4);
  if (prefix.length < 4 || !prefix.every((g) => hextet.test(g))) return null;
  return prefix.map((g) => Number.parseInt(g, 16).toString(16));
}

/**
 * Where an address counts: an IPv4 address alone (an IPv4-mapped IPv6 address as that IPv4
 * address), an IPv6 address as its /64, anything else as itself.
 */
export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!address.includes(':')) return address;
  const prefix = ipv6Prefix(address);
  return prefix ? `${prefix.join(':')}::/64` : address;
}

export function failedSignInThrottles(
  limits: Limits,
  address: string,
  username: string,
  from: { ownDevice: boolean },
): Throttle[] {
  const group = addressGroup(address);
  const perName = limits.sign_ins_per_5_minutes;
  const throttles: Throttle[] = [
    {
      key: `sign-in-failures\n${group}\n${username}`,
      limit: perName,
      windowSeconds: 300,
      what: 'failed sign-ins for this user name from your address',
    },
    {
      key: `sign-in-failures-hourly\n${group}\n${username}`,
      limit: perName * hourlyMultiple,
      windowSeconds: 3600,
      what: 'failed sign-ins for this user name from your address',
    },
    {
      key: `sign-in-failures\n${group}`,
      limit: limits.failed_sign_ins_per_address_per_5_minutes,
      windowSeconds: 300,
      what: 'failed sign-ins from your address',
    },
  ];
  if (from.ownDevice) return throttles;
  return throttles.concat(
    perNameTiers.map(({ windowSeconds, multiple }) => ({
      key: `sign-in-failures-of-name-${windowSeconds}\n${username}`,
      limit: limits.failed_sign_ins_per_name_per_5_minutes * multiple,
      windowSeconds,
      what: 'failed sign-ins for this user name from browsers it has not signed in on',
    })),
  );
}

/** Each identity-provider sign-in started writes a pending item: bounded per address. */
export function signInStartThrottle(limits: Limits, address: string): Throttle {
  return {
    key: `sign-in-starts\n${addressGroup(address)}`,
    limit: limits.sign_in_starts_per_address_per_5_minutes,
    windowSeconds: 300,
    what: 'sign-ins started from your address',
  };
}

/** The sealed value's list: device cookies are no cursor of any list. */
const deviceSeal = { sealed: 'sign-in-device' };

/** How long a browser stays one its person signed in on (Chromium keeps no cookie over 400 days). */
export const ownDeviceSeconds = 180 * 86_400;

/** The device cookie a browser gets when it signs `user` in with their password. */
export function deviceCookieValue(cursors: Cursors, user: { id: string; username: string }): string {
  return cursors.seal(deviceSeal, { user_id: user.id, username: user.username });
}

/**
 * Whether `cookie` says this browser signed in as `username` before: sealed here, and for the person
 * who has that name now (a name deleted and made again is someone new).
 */
export async function isOwnDevice(
  deps: { cursors: Cursors; users: UserStore },
  cookie: string | undefined,
  username: string,
): Promise<boolean> {
  if (!cookie) return false;
  const sealed = deps.cursors.open(deviceSeal, cookie) as
    | { user_id?: unknown; username?: unknown }
    | undefined;
  if (sealed?.username !== username) return false;
  const user = await deps.users.get(username);
  return user !== null && user.id === sealed.user_id;
}

/** Longer passwords are refused unread: nobody's password is over this (the save rule's maximum). */
export const maxPasswordLength = 1024;
