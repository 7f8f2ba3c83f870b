/**
 * Rate limits that hold across many API instances: fixed windows counted in the table (conditional
 * atomic increments with a TTL), never in a process's memory.
 */
import { ErrorCode, ProblemError } from '../errors.ts';
import type { RateLimiter } from './ports.ts';

export interface Throttle {
  key: string;
  limit: number;
  windowSeconds: number;
  /** What is counted, for the refusal: "failed sign-ins for this name from your address". */
  what: string;
}

function tooMany(rule: Throttle, now: Date): ProblemError {
  const retryAfter = secondsLeftInWindow(now, rule.windowSeconds);
  return new ProblemError(
    ErrorCode.RateLimited,
    `Too many ${rule.what}: at most ${rule.limit} per ${rule.windowSeconds} s; retry in ${retryAfter} s.`,
    { headers: { 'retry-after': String(retryAfter) } },
  );
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

/** Counts one hit; refuses (`rate_limited`, with `Retry-After`) once the window is full. */
export async function enforceRateLimit(limiter: RateLimiter, rule: Throttle, now: Date): Promise<void> {
  if (await limiter.hit(rule.key, rule.limit, rule.windowSeconds, now)) return;
  throw tooMany(rule, now);
}

/** Refuses when any of `rules` is already full, counting nothing: the check before an attempt. */
export async function requireUnderLimits(limiter: RateLimiter, rules: readonly Throttle[], now: Date) {
  const counts = await Promise.all(rules.map((rule) => limiter.count(rule.key, rule.windowSeconds, now)));
  const full = rules.find((rule, i) => (counts[i] ?? 0) >= rule.limit);
  if (full) throw tooMany(full, now);
}

/** Counts one hit on each of `rules` (a failure, after the fact). */
export async function countHits(limiter: RateLimiter, rules: readonly Throttle[], now: Date) {
  await Promise.all(rules.map((rule) => limiter.hit(rule.key, rule.limit, rule.windowSeconds, now)));
}
