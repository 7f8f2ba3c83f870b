/**
 * What slows password guessing without letting a stranger lock a person out: only failures count,
 * and they count per client address — per address and name (5 minutes, then an hourly cap: the
 * backoff), and per address across names (a spray of many names from one place). A stranger's
 * failures from elsewhere never stop the owner's correct password, and a success counts nothing.
 */
import type { Throttle } from './limits.ts';
import type { AuthSettings } from './settings.ts';

type Limits = AuthSettings['limits'];

const hourlyMultiple = 3;

export function failedSignInThrottles(limits: Limits, address: string, username: string): Throttle[] {
  const perName = limits.sign_ins_per_5_minutes;
  return [
    {
      key: `sign-in-failures\n${address}\n${username}`,
      limit: perName,
      windowSeconds: 300,
      what: 'failed sign-ins for this user name from your address',
    },
    {
      key: `sign-in-failures-hourly\n${address}\n${username}`,
      limit: perName * hourlyMultiple,
      windowSeconds: 3600,
      what: 'failed sign-ins for this user name from your address',
    },
    {
      key: `sign-in-failures\n${address}`,
      limit: limits.failed_sign_ins_per_address_per_5_minutes,
      windowSeconds: 300,
      what: 'failed sign-ins from your address',
    },
  ];
}

/** Each identity-provider sign-in started writes a pending item: bounded per address. */
export function signInStartThrottle(limits: Limits, address: string): Throttle {
  return {
    key: `sign-in-starts\n${address}`,
    limit: limits.sign_in_starts_per_address_per_5_minutes,
    windowSeconds: 300,
    what: 'sign-ins started from your address',
  };
}

/** Longer passwords are refused unread: nobody's password is over this (the save rule's maximum). */
export const maxPasswordLength = 1024;
