// GitHub's primary rate limit (an hourly budget per credential, reported in x-ratelimit-* headers on
// every answer) and the faults that make the next N calls answer as an exhausted or secondary limit
// does, or fail with a server error.

import { GitHubError } from './errors.ts';

export const RateLimitKind = { primary: 'primary', secondary: 'secondary' } as const;
export type RateLimitKind = (typeof RateLimitKind)[keyof typeof RateLimitKind];

export interface RateLimitFault {
  /** How many next API calls are refused. */
  count: number;
  kind: RateLimitKind;
  /** Primary: seconds until x-ratelimit-reset. Secondary: the retry-after header. Default 60. */
  retryAfterSeconds?: number;
}

export interface ServerErrorFault {
  count: number;
  /** Default 502. */
  status?: number;
}

interface Window {
  used: number;
  reset: number;
}

export interface RateLimitSnapshot {
  limit: number;
  remaining: number;
  used: number;
  reset: number;
}

const WINDOW_S = 3600;
const DEFAULT_RETRY_AFTER_S = 60;
const RATE_LIMIT_DOCS = 'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api';

export class RateLimits {
  readonly limit: number;
  private readonly windows = new Map<string, Window>();
  private rateLimitFault: Required<RateLimitFault> | undefined;
  private serverErrorFault: Required<ServerErrorFault> | undefined;

  constructor(limit = 5000) {
    this.limit = limit;
  }

  setRateLimitFault(fault: RateLimitFault): void {
    this.rateLimitFault =
      fault.count > 0 ? { retryAfterSeconds: DEFAULT_RETRY_AFTER_S, ...fault } : undefined;
  }

  setServerErrorFault(fault: ServerErrorFault): void {
    this.serverErrorFault = fault.count > 0 ? { status: 502, ...fault } : undefined;
  }

  faults(): { rateLimit: Required<RateLimitFault> | null; serverErrors: Required<ServerErrorFault> | null } {
    return { rateLimit: this.rateLimitFault ?? null, serverErrors: this.serverErrorFault ?? null };
  }

  private window(subject: string, nowSeconds: number): Window {
    let window = this.windows.get(subject);
    if (!window || window.reset <= nowSeconds) {
      window = { used: 0, reset: nowSeconds + WINDOW_S };
      this.windows.set(subject, window);
    }
    return window;
  }

  snapshot(subject: string, nowSeconds = Math.floor(Date.now() / 1000)): RateLimitSnapshot {
    const { used, reset } = this.window(subject, nowSeconds);
    return { limit: this.limit, used, remaining: Math.max(0, this.limit - used), reset };
  }

  count(subject: string): void {
    this.window(subject, Math.floor(Date.now() / 1000)).used += 1;
  }

  /**
   * Throws what GitHub answers when this call may not proceed: a pending fault first, then a
   * genuinely exhausted budget, then a pending server-error fault.
   */
  admit(subject: string, describe: string): void {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const snapshot = this.snapshot(subject, nowSeconds);
    const fault = this.rateLimitFault;
    if (fault) {
      fault.count -= 1;
      if (fault.count === 0) this.rateLimitFault = undefined;
      if (fault.kind === RateLimitKind.secondary) {
        throw new GitHubError(
          429,
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          `${RATE_LIMIT_DOCS}#about-secondary-rate-limits`,
        ).withHeaders({ 'retry-after': String(fault.retryAfterSeconds) });
      }
      const exhausted = {
        ...snapshot,
        used: this.limit,
        remaining: 0,
        reset: nowSeconds + fault.retryAfterSeconds,
      };
      throw primaryExhausted(describe).withHeaders(rateLimitHeaders(exhausted));
    }
    if (snapshot.remaining === 0) throw primaryExhausted(describe);
    const serverError = this.serverErrorFault;
    if (serverError) {
      serverError.count -= 1;
      if (serverError.count === 0) this.serverErrorFault = undefined;
      throw new GitHubError(serverError.status, 'Server Error');
    }
  }
}

function primaryExhausted(describe: string): GitHubError {
  return new GitHubError(
    403,
    `API rate limit exceeded for ${describe}. If you reach out to GitHub Support for help, please include the request ID.`,
    `${RATE_LIMIT_DOCS}#exceeding-the-rate-limit`,
  );
}

export function rateLimitHeaders(snapshot: RateLimitSnapshot): Record<string, string> {
  return {
    'x-ratelimit-limit': String(snapshot.limit),
    'x-ratelimit-remaining': String(snapshot.remaining),
    'x-ratelimit-used': String(snapshot.used),
    'x-ratelimit-reset': String(snapshot.reset),
    'x-ratelimit-resource': 'core',
  };
}
