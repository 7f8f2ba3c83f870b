/** Time is a port, so tests can move it (expiry, retention, overdue operations) without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with `Z`, millisecond precision. */
export function iso(date: Date): string {
  return date.toISOString();
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
