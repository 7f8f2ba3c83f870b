// Every call goes through `call`: a rate-limit answer becomes `ForgeRateLimitedError` (and shows in
// the budget) rather than being waited out, so the worker defers the job. GETs polled often are
// conditional, answered from a bounded cache on a 304, which costs no rate limit.

import { Forge } from '@svc/core';
import { forget } from './clients.ts';
import type { GitHubContext, Installed } from './context.ts';
import { isStatus } from './octokit.ts';

/** Answers kept for conditional requests. */
const maxCachedAnswers = 2000;

/** How long to wait, in whole seconds: Retry-After, else until the reset, else a minute. */
function retryAfterSeconds(headers: Record<string, string | number | undefined>): number {
  const reset = Number(headers['x-ratelimit-reset']) * 1000;
  const retryAfter =
    Number(headers['retry-after']) ||
    (Number.isFinite(reset) ? Math.ceil((reset - Date.now()) / 1000) + 1 : 60);
  return Math.max(1, retryAfter);
}

/** The error to throw instead of `error`: a rate limit, or `error` itself. */
function rateLimited(context: GitHubContext, installation: string, error: unknown): unknown {
  if (!isStatus(error, 403, 429)) return error;
  const headers = error.response?.headers ?? {};
  const secondary = /secondary rate/i.test(error.message);
  if (!secondary && headers['x-ratelimit-remaining'] !== '0' && error.status !== 429) return error;
  const seconds = retryAfterSeconds(headers);
  const budget = context.budgets.get(installation);
  context.budgets.set(installation, {
    installation,
    limit: budget?.limit ?? null,
    remaining: budget?.remaining ?? 0,
    reset_at: budget?.reset_at ?? null,
    throttled_until: new Date(Date.now() + seconds * 1000).toISOString(),
    observed_at: new Date().toISOString(),
  });
  return new Forge.ForgeRateLimitedError(installation, seconds, { cause: error });
}

export async function call<T>(
  context: GitHubContext,
  installation: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isStatus(error, 401) && installation !== 'app') forget(context, installation);
    throw rateLimited(context, installation, error);
  }
}

/** A GET answered from the cache when the forge says 304. */
export async function conditionalGet(
  context: GitHubContext,
  installation: Installed,
  route: string,
  parameters: Record<string, unknown>,
): Promise<{ data: unknown; link: string | undefined }> {
  const key = `${installation.id} ${route} ${JSON.stringify(parameters)}`;
  const cached = context.etags.get(key);
  try {
    const response = await call(context, installation.id, () =>
      installation.octokit.request(route, {
        ...parameters,
        headers: cached ? { 'if-none-match': cached.etag } : {},
      }),
    );
    const etag = response.headers.etag;
    const link = response.headers.link;
    if (etag) {
      context.etags.delete(key);
      context.etags.set(key, { etag, data: response.data, link });
      // Oldest first: a bounded cache of the recent answers.
      if (context.etags.size > maxCachedAnswers)
        context.etags.delete(context.etags.keys().next().value as string);
    }
    return { data: response.data as unknown, link };
  } catch (error) {
    if (isStatus(error, 304) && cached) return { data: cached.data, link: cached.link };
    throw error;
  }
}
