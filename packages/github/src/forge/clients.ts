// One octokit per installation (and one for the app), authenticated by `@octokit/auth-app`, each
// answer noted in the installation's rate-limit budget.

import { createAppAuth } from '@octokit/auth-app';
import type { GitHubContext } from './context.ts';
import { type Headers, isHttpError, Octokit } from './octokit.ts';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function note(context: GitHubContext, installation: string, headers: Headers | undefined) {
  if (!headers || headers['x-ratelimit-limit'] === undefined) return;
  const reset = Number(headers['x-ratelimit-reset']);
  const previous = context.budgets.get(installation);
  context.budgets.set(installation, {
    installation,
    limit: Number(headers['x-ratelimit-limit']),
    remaining: Number(headers['x-ratelimit-remaining']),
    reset_at: Number.isFinite(reset) ? new Date(reset * 1000).toISOString() : null,
    throttled_until:
      previous?.throttled_until && Date.parse(previous.throttled_until) > Date.now()
        ? previous.throttled_until
        : null,
    observed_at: new Date().toISOString(),
  });
}

export function client(context: GitHubContext, installation: string, auth: Record<string, unknown>): Octokit {
  const cached = context.clients.get(installation);
  if (cached) return cached;
  const { settings } = context;
  const octokit = new Octokit({
    ...(settings.apiUrl ? { baseUrl: settings.apiUrl } : {}),
    log: quiet,
    authStrategy: createAppAuth,
    auth: { appId: settings.appId, privateKey: settings.privateKey, ...auth },
    throttle: { write: context.writes, onRateLimit: () => false, onSecondaryRateLimit: () => false },
    // 429 is a rate limit: deferred by the worker, never retried here.
    retry: { retries: 2, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
  });
  octokit.hook.after('request', (response) =>
    note(context, installation, response.headers as Record<string, string>),
  );
  octokit.hook.error('request', (error) => {
    if (isHttpError(error)) note(context, installation, error.response?.headers);
    throw error;
  });
  context.clients.set(installation, octokit);
  return octokit;
}

/** The app's own client, signing with its JWT. */
export const appClient = (context: GitHubContext) => client(context, 'app', {});

/** An installation whose token is refused was removed: look its repositories up again. */
export function forget(context: GitHubContext, installation: string): void {
  context.clients.delete(installation);
  for (const [repository, entry] of context.installations) {
    if (String(entry.id) === installation) context.installations.delete(repository);
  }
}
