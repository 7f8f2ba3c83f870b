import type { Clock } from '@svc/core';

/** A clock tests move by hand: expiry, retention and overdue work without sleeping. */
export interface TestClock extends Clock {
  advance(seconds: number): void;
}

export function testClock(start = new Date()): TestClock {
  let offsetMs = 0;
  const origin = start.getTime() - Date.now();
  return {
    now: () => new Date(Date.now() + origin + offsetMs),
    advance(seconds) {
      offsetMs += seconds * 1000;
    },
  };
}
