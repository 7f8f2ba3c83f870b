/** Transient Kubernetes API failures (throttling, 5xx, dropped connections) are retried a few times, with backoff. */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
}

export const defaultRetry: RetryPolicy = { attempts: 4, baseDelayMs: 50 };

export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

export function isTransient(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status === 429 || status >= 500;
  const text = `${(error as Error)?.message ?? ''} ${(error as { cause?: { code?: string } })?.cause?.code ?? ''}`;
  return /fetch failed|ECONNRESET|ECONNREFUSED|EPIPE|socket hang up|ETIMEDOUT|other side closed|UND_ERR/i.test(
    text,
  );
}

export async function withRetry<T>(call: () => Promise<T>, policy: RetryPolicy = defaultRetry): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= policy.attempts || !isTransient(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, policy.baseDelayMs * 3 ** (attempt - 1)));
    }
  }
}
