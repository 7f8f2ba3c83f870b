import { DependencyUnavailableError } from '@svc/core';

/** A Kubernetes API call that found the cluster unavailable is retried a few times, with backoff. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

export const defaultRetry: RetryPolicy = { attempts: 4, baseDelayMs: 50 };

/** Retries what `call` throws as DependencyUnavailableError; any other error is an answer and ends it. */
export async function withRetry<T>(call: () => Promise<T>, policy: RetryPolicy = defaultRetry): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= policy.attempts || !(error instanceof DependencyUnavailableError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, policy.baseDelayMs * 3 ** (attempt - 1)));
    }
  }
}
