/**
 * The forge port on GitHub, as a GitHub App: `@octokit/auth-app` signs app JWTs and trades them for
 * installation tokens (cached until they expire), `@octokit/core` with the paginate, throttling and
 * retry plugins makes the calls. A rate limit is never waited out here: the throttling plugin is
 * told not to retry, and the call throws `ForgeRateLimitedError` so the worker defers the job.
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit as Core } from '@octokit/core';
import { paginateRest } from '@octokit/plugin-paginate-rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { ErrorCode, Forge, ProblemError } from '@svc/core';
import Bottleneck from 'bottleneck';
import type { GitHubAppSettings } from './settings.ts';

const Octokit = Core.plugin(paginateRest, throttling, retry);
type Octokit = InstanceType<typeof Octokit>;

interface HttpError {
  status: number;
  message: string;
  response?: { headers: Record<string, string | number | undefined> };
}

const isHttpError = (error: unknown): error is HttpError =>
  typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number';

const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Answers kept for conditional requests. */
const maxCachedAnswers = 2000;

/** How long an installation lookup of a repository is trusted. */
const installationCacheMs = 10 * 60 * 1000;

interface GitHubPull {
  number: number;
  state: string;
  labels: { name?: string }[];
  head: { sha: string; repo: { full_name: string } | null };
  base: { repo: { full_name: string } };
}

function pullRequest(repository: string, pull: GitHubPull): Forge.PullRequest {
  return {
    repository,
    number: pull.number,
    open: pull.state === 'open',
    labels: pull.labels.flatMap((label) => (label.name ? [label.name] : [])),
    head_sha: pull.head.sha,
    // A deleted fork has no head repository: it is still a fork.
    fork: pull.head.repo?.full_name.toLowerCase() !== pull.base.repo.full_name.toLowerCase(),
  };
}

const accountName = (account: unknown) => {
  const named = account as { login?: string; slug?: string; name?: string } | null;
  return named?.login ?? named?.slug ?? named?.name ?? '';
};

const split = (repository: string) => {
  const [owner = '', repo = ''] = repository.split('/');
  return { owner, repo };
};

const nextPage = (link: string | number | undefined) => {
  const match = /[?&]page=(\d+)[^>]*>;\s*rel="next"/.exec(String(link ?? ''));
  return match ? Number(match[1]) : null;
};

export function gitHubForge(settings: GitHubAppSettings): Forge.ForgePort {
  const budgets = new Map<string, Forge.RateBudget>();
  const installations = new Map<string, { id: number | null; until: number }>();
  const clients = new Map<string, Octokit>();
  const etags = new Map<string, { etag: string; data: unknown; link: string | undefined }>();
  // One write queue per app, not octokit's process-wide default.
  const writes = new Bottleneck.Group({ maxConcurrent: 1, minTime: settings.writeIntervalMs });

  function note(installation: string, headers: Record<string, string | number | undefined> | undefined) {
    if (!headers || headers['x-ratelimit-limit'] === undefined) return;
    const reset = Number(headers['x-ratelimit-reset']);
    const previous = budgets.get(installation);
    budgets.set(installation, {
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

  function client(installation: string, auth: Record<string, unknown>): Octokit {
    const cached = clients.get(installation);
    if (cached) return cached;
    const octokit = new Octokit({
      ...(settings.apiUrl ? { baseUrl: settings.apiUrl } : {}),
      log: quiet,
      authStrategy: createAppAuth,
      auth: { appId: settings.appId, privateKey: settings.privateKey, ...auth },
      throttle: { write: writes, onRateLimit: () => false, onSecondaryRateLimit: () => false },
      // 429 is a rate limit: deferred by the worker, never retried here.
      retry: { retries: 2, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    });
    octokit.hook.after('request', (response) =>
      note(installation, response.headers as Record<string, string>),
    );
    octokit.hook.error('request', (error) => {
      if (isHttpError(error)) note(installation, error.response?.headers);
      throw error;
    });
    clients.set(installation, octokit);
    return octokit;
  }

  const app = () => client('app', {});

  /** An installation whose token is refused was removed: look its repositories up again. */
  function forget(installation: string) {
    clients.delete(installation);
    for (const [repository, entry] of installations) {
      if (String(entry.id) === installation) installations.delete(repository);
    }
  }

  /** Runs a call; a rate-limit answer becomes `ForgeRateLimitedError` (and shows in the budget). */
  async function call<T>(installation: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (isHttpError(error) && error.status === 401 && installation !== 'app') forget(installation);
      if (!isHttpError(error) || (error.status !== 403 && error.status !== 429)) throw error;
      const headers = error.response?.headers ?? {};
      const secondary = /secondary rate/i.test(error.message);
      if (!secondary && headers['x-ratelimit-remaining'] !== '0' && error.status !== 429) throw error;
      const reset = Number(headers['x-ratelimit-reset']) * 1000;
      const retryAfter =
        Number(headers['retry-after']) ||
        (Number.isFinite(reset) ? Math.ceil((reset - Date.now()) / 1000) + 1 : 60);
      const seconds = Math.max(1, retryAfter);
      const budget = budgets.get(installation);
      budgets.set(installation, {
        installation,
        limit: budget?.limit ?? null,
        remaining: budget?.remaining ?? 0,
        reset_at: budget?.reset_at ?? null,
        throttled_until: new Date(Date.now() + seconds * 1000).toISOString(),
        observed_at: new Date().toISOString(),
      });
      throw new Forge.ForgeRateLimitedError(installation, seconds, { cause: error });
    }
  }

  /** The installation holding a repository (null: the app is not installed there). */
  async function installationOf(repository: string): Promise<number | null> {
    const key = repository.toLowerCase();
    const cached = installations.get(key);
    if (cached && cached.until > Date.now()) return cached.id;
    try {
      const { data } = await call('app', () =>
        app().request('GET /repos/{owner}/{repo}/installation', split(repository)),
      );
      installations.set(key, { id: data.id, until: Date.now() + installationCacheMs });
      return data.id;
    } catch (error) {
      if (isHttpError(error) && error.status === 404) {
        installations.set(key, { id: null, until: Date.now() + 30_000 });
        return null;
      }
      throw error;
    }
  }

  async function installed(repository: string): Promise<{ octokit: Octokit; id: string } | null> {
    const installation = await installationOf(repository);
    if (installation === null) return null;
    const id = String(installation);
    return { octokit: client(id, { installationId: installation }), id };
  }

  async function requireInstalled(repository: string) {
    const found = await installed(repository);
    if (!found) throw new Error(`the app is not installed on ${repository}`);
    return found;
  }

  /** A GET answered from the cache when the forge says 304 (which costs no rate limit). */
  async function conditionalGet(
    installation: { octokit: Octokit; id: string },
    route: string,
    parameters: Record<string, unknown>,
  ) {
    const key = `${installation.id} ${route} ${JSON.stringify(parameters)}`;
    const cached = etags.get(key);
    try {
      const response = await call(installation.id, () =>
        installation.octokit.request(route, {
          ...parameters,
          headers: cached ? { 'if-none-match': cached.etag } : {},
        }),
      );
      const etag = response.headers.etag;
      const link = response.headers.link;
      if (etag) {
        etags.delete(key);
        etags.set(key, { etag, data: response.data, link });
        // Oldest first: a bounded cache of the recent answers.
        if (etags.size > maxCachedAnswers) etags.delete(etags.keys().next().value as string);
      }
      return { data: response.data as unknown, link };
    } catch (error) {
      if (isHttpError(error) && error.status === 304 && cached)
        return { data: cached.data, link: cached.link };
      throw error;
    }
  }

  return {
    async getPullRequest(repository, number) {
      const found = await installed(repository);
      if (!found) return null;
      try {
        // Conditional: a pull request polled while its preview deploys mostly answers 304, which is free.
        const { data } = await conditionalGet(found, 'GET /repos/{owner}/{repo}/pulls/{pull_number}', {
          ...split(repository),
          pull_number: number,
        });
        return pullRequest(repository, data as GitHubPull);
      } catch (error) {
        if (isHttpError(error) && error.status === 404) {
          installations.delete(repository.toLowerCase());
          return null;
        }
        throw error;
      }
    },

    async listOpenPullRequests(repository, label) {
      const found = await installed(repository);
      if (!found) return [];
      const pulls: Forge.PullRequest[] = [];
      try {
        for (let page: number | null = 1; page !== null; ) {
          const { data, link } = await conditionalGet(found, 'GET /repos/{owner}/{repo}/pulls', {
            ...split(repository),
            state: 'open',
            per_page: 100,
            page,
          });
          pulls.push(...(data as GitHubPull[]).map((pull) => pullRequest(repository, pull)));
          page = nextPage(link);
        }
      } catch (error) {
        // The repository left the installation: none of its pull requests can be seen any more.
        if (!isHttpError(error) || error.status !== 404) throw error;
        installations.delete(repository.toLowerCase());
        return [];
      }
      return pulls.filter((pull) => pull.labels.includes(label));
    },

    async upsertComment(repository, number, comment) {
      const { octokit, id: installation } = await requireInstalled(repository);
      const edit = (commentId: number) =>
        call(installation, () =>
          octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
            ...split(repository),
            comment_id: commentId,
            body: comment.body,
          }),
        );
      if (comment.id !== null) {
        try {
          await edit(comment.id);
          return comment.id;
        } catch (error) {
          // Deleted by someone: find it by its marker, or write a new one.
          if (!isHttpError(error) || error.status !== 404) throw error;
        }
      }
      const existing = await call(installation, () =>
        octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...split(repository),
          issue_number: number,
          per_page: 100,
        }),
      );
      const mine = existing.find((c) => c.body?.includes(comment.marker));
      if (mine) {
        await edit(Number(mine.id));
        return Number(mine.id);
      }
      const { data } = await call(installation, () =>
        octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...split(repository),
          issue_number: number,
          body: comment.body,
        }),
      );
      return Number(data.id);
    },

    async upsertCheckRun(repository, id, run) {
      const { octokit, id: installation } = await requireInstalled(repository);
      const fields = {
        status: run.status,
        ...(run.conclusion ? { conclusion: run.conclusion } : {}),
        ...(run.details_url ? { details_url: run.details_url } : {}),
        output: { title: run.title, summary: run.summary },
      };
      if (id !== null) {
        await call(installation, () =>
          octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
            ...split(repository),
            check_run_id: id,
            ...fields,
          }),
        );
        return id;
      }
      const { data } = await call(installation, () =>
        octokit.request('POST /repos/{owner}/{repo}/check-runs', {
          ...split(repository),
          name: 'preview',
          head_sha: run.head_sha,
          ...fields,
        }),
      );
      return Number(data.id);
    },

    async listInstallations(page) {
      const response = await call('app', () =>
        app().request('GET /app/installations', { per_page: 30, page }),
      );
      return {
        items: response.data.map((installation) => ({
          id: installation.id,
          account: accountName(installation.account),
          repository_selection: installation.repository_selection,
          created_at: installation.created_at ?? null,
          suspended_at: installation.suspended_at ?? null,
        })),
        page,
        next_page: nextPage(response.headers.link),
      };
    },

    async getInstallation(id) {
      try {
        const { data } = await call('app', () =>
          app().request('GET /app/installations/{installation_id}', { installation_id: id }),
        );
        return { id: data.id, account: accountName(data.account), suspended_at: data.suspended_at ?? null };
      } catch (error) {
        if (isHttpError(error) && error.status === 404) return null;
        throw error;
      }
    },

    async listRepositories(installationId, page) {
      const id = String(installationId);
      const octokit = client(id, { installationId });
      try {
        const response = await call(id, () =>
          octokit.request('GET /installation/repositories', { per_page: 30, page }),
        );
        return {
          items: response.data.repositories.map((repository) => ({
            id: Number(repository.id),
            full_name: repository.full_name,
            private: repository.private,
            default_branch: repository.default_branch ?? null,
          })),
          page,
          next_page: nextPage(response.headers.link),
        };
      } catch (error) {
        if (isHttpError(error) && (error.status === 404 || error.status === 401)) {
          throw new ProblemError(ErrorCode.NotFound, `installation "${installationId}" not found`);
        }
        throw error;
      }
    },

    async checkApp() {
      try {
        await call('app', () => app().request('GET /app'));
        return { app_id: settings.appId, private_key: 'valid', error: null };
      } catch (error) {
        if (isHttpError(error) && error.status === 401) {
          return { app_id: settings.appId, private_key: 'invalid', error: 'the forge refused the app JWT' };
        }
        throw error;
      }
    },

    async deliveries(since) {
      const attempts: Forge.ForgeDeliveryAttempt[] = [];
      for await (const response of app().paginate.iterator('GET /app/hook/deliveries', { per_page: 100 })) {
        let older = false;
        for (const delivery of response.data) {
          if (Date.parse(delivery.delivered_at) < since.getTime()) {
            older = true;
            break;
          }
          attempts.push({
            id: Number(delivery.id),
            guid: delivery.guid,
            delivered_at: delivery.delivered_at,
            ok: delivery.status_code >= 200 && delivery.status_code < 300,
          });
        }
        if (older) break;
      }
      return attempts;
    },

    async redeliver(attemptId) {
      await call('app', () =>
        app().request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: attemptId }),
      );
    },

    forgetRepositories(repositories) {
      for (const repository of repositories) {
        const cached = installations.get(repository.toLowerCase());
        // Its token too: one issued before a suspension may be refused after it.
        if (cached?.id != null) forget(String(cached.id));
        installations.delete(repository.toLowerCase());
      }
    },

    budgets: () => [...budgets.values()],
  };
}
