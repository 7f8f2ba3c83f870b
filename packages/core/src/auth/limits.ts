/**
 * Rate limits that hold across many API instances: fixed windows counted in the table (conditional
 * atomic increments with a TTL), never in a process's memory.
 */
import { ErrorCode, ProblemError } from '../errors.ts';

export interface RateLimiter {
  /**
   * Counts one hit on `key` in the window containing `now`; false once `limit` hits were already
   * counted in it (the refused hit is not counted).
   */
  hit(key: string, limit: number, windowSeconds: number, now: Date): Promise<boolean>;
}

/** Seconds until the window containing `now` ends: what `Retry-After` says. */
function secondsLeftInWindow(now: Date, windowSeconds: number): number {
  const ms = windowSeconds * 1000;
  return Math.max(1, Math.ceil((ms - (now.getTime() % ms)) / 1000));
}

/** Starts of fixed windows: every instance agrees on them without talking. */
export function windowStart(now: Date, windowSeconds: number): string {
  const ms = windowSeconds * 1000;
  return new Date(Math.floor(now.getTime() / ms) * ms).toISOString();
}

export async function enforceRateLimit(
  limiter: RateLimiter,
  rule: { key: string; limit: number; windowSeconds: number; what: string },
  now: Date,
): Promise<void> {
  if (await limiter.hit(rule.key, rule.limit, rule.windowSeconds, now)) return;
  const retryAfter = secondsLeftInWindow(now, rule.windowSeconds);
  throw new ProblemError(
    ErrorCode.RateLimited,
    `Too many ${rule.what}: at most ${rule.limit} per ${rule.windowSeconds} s; retry in ${retryAfter} s.`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
}
