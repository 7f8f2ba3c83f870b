// The subset of GitHub's REST API that a GitHub App owning pull-request previews calls, with
// GitHub's authentication rules, paging, conditional requests, rate-limit headers and error bodies.

import { createHash, randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { AppAuth, Credentials } from './auth.ts';
import { JWT_UNDECODABLE } from './auth.ts';
import { DOCS, GitHubError, invalidRequest, notFound } from './errors.ts';
import { cursorPage, numberedPage, type Page } from './paging.ts';
import { type RateLimits, rateLimitHeaders } from './rate-limit.ts';
import type { Renderer } from './render.ts';
import type { Simulator } from './simulator.ts';
import {
  CHECK_CONCLUSIONS,
  CHECK_STATUSES,
  type CheckRunRecord,
  COMMIT_STATES,
  type PullRecord,
  type RepositoryRecord,
  timestamp,
} from './state.ts';
import type { ForgeStore } from './store.ts';
import type { WebhookSender } from './webhooks.ts';

type Env = { Variables: { credentials: Credentials } };
type Ctx = Context<Env>;
type Level = 'read' | 'write';

export interface ApiDeps {
  store: ForgeStore;
  auth: AppAuth;
  render: Renderer;
  rateLimits: RateLimits;
  webhooks: WebhookSender;
  /** Suspends or unsuspends an installation, with its webhook (the simulator's verb). */
  installations: Pick<Simulator, 'setSuspended'>;
}

const resourceNotAccessible = () => new GitHubError(403, 'Resource not accessible by integration');
const requiresAuthentication = () => new GitHubError(401, 'Requires authentication');

function subjectOf(credentials: Credentials, address: string): { key: string; describe: string } {
  if (credentials.kind === 'installation') {
    const id = credentials.installation.id;
    return { key: `installation:${id}`, describe: `installation ID ${id}` };
  }
  if (credentials.kind === 'app') return { key: 'app', describe: 'the app' };
  return { key: `address:${address}`, describe: address };
}

function integer(value: string | undefined): number {
  const n = Number(value);
  if (!value || !Number.isSafeInteger(n) || n <= 0) throw notFound();
  return n;
}

function oneOf<const T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalidRequest(
      `For 'properties/${field}', ${JSON.stringify(value)} is not one of ${JSON.stringify(allowed)}.`,
    );
  }
  return value as T;
}

function optionalString(body: Record<string, unknown>, field: string): string | null | undefined {
  const value = body[field];
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string')
    throw invalidRequest(`For 'properties/${field}', ${JSON.stringify(value)} is not a string.`);
  return value;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const value = optionalString(body, field);
  if (typeof value !== 'string') throw invalidRequest(`"${field}" wasn't supplied.`);
  return value;
}

/** An absent body reads as `{}`, so a missing field is reported as missing rather than as bad JSON. */
async function jsonBody(c: Ctx): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GitHubError(400, 'Problems parsing JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new GitHubError(400, 'Problems parsing JSON');
  }
  return parsed as Record<string, unknown>;
}

function paged<T>(c: Ctx, page: Page<T>, body: unknown = page.items): Response {
  if (page.link) c.header('Link', page.link);
  return c.json(body);
}

/** GitHub's "latest" check-run filter: the newest run of each name. */
function latestPerName(runs: CheckRunRecord[]): CheckRunRecord[] {
  const seen = new Set<string>();
  return runs.filter((run) => !seen.has(run.name) && seen.add(run.name));
}

export function createApi(deps: ApiDeps): Hono<Env> {
  const { store, auth, render, rateLimits, webhooks, installations } = deps;
  const app = new Hono<Env>();

  const errorResponse = (error: Error, c: Ctx): Response => {
    if (error instanceof GitHubError) return c.json(error.body(), error.status as 400, error.headers);
    process.stderr.write(`local-forge: ${c.req.method} ${c.req.path} failed: ${String(error)}\n`);
    return c.json({ message: 'Server Error', documentation_url: DOCS, status: '500' }, 500);
  };
  app.onError(errorResponse);
  app.notFound((c) => c.json(notFound().body(), 404));

  // Authentication, rate limits and the headers GitHub puts on every answer. A 304 does not count.
  app.use('*', async (c, next) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    let subject = subjectOf({ kind: 'none' }, c.req.header('x-forwarded-for') ?? '127.0.0.1');
    try {
      const credentials = auth.authenticate(c.req.header('authorization'));
      c.set('credentials', credentials);
      subject = subjectOf(credentials, subject.describe);
      rateLimits.admit(subject.key, subject.describe);
      await next();
    } catch (error) {
      c.res = errorResponse(error as Error, c);
    }
    if (c.res.status !== 304) rateLimits.count(subject.key);
    const fixed = c.res.headers.get('x-ratelimit-remaining') !== null;
    const headers: Record<string, string> = {
      ...(fixed ? {} : rateLimitHeaders(rateLimits.snapshot(subject.key))),
      'x-github-request-id': requestId,
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      vary: 'Accept, Authorization, Cookie, X-GitHub-OTP',
    };
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  });

  // Conditional requests: every successful GET carries an ETag; a matching If-None-Match gets 304.
  app.use('*', async (c, next) => {
    await next();
    if (c.req.method !== 'GET' || c.res.status !== 200) return;
    const etag = `W/"${createHash('sha256')
      .update(await c.res.clone().text())
      .digest('hex')
      .slice(0, 40)}"`;
    c.header('ETag', etag);
    c.header('Cache-Control', 'private, max-age=60, s-maxage=60');
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      c.res = new Response(null, { status: 304, headers: c.res.headers });
    }
  });

  const requireApp = (c: Ctx): void => {
    const credentials = c.get('credentials');
    if (credentials.kind === 'none') throw requiresAuthentication();
    if (credentials.kind !== 'app') throw new GitHubError(401, JWT_UNDECODABLE);
  };

  const requireInstallation = (c: Ctx) => {
    const credentials = c.get('credentials');
    if (credentials.kind === 'none') throw requiresAuthentication();
    if (credentials.kind !== 'installation') throw resourceNotAccessible();
    return credentials;
  };

  const visibleRepositoryIds = (c: Ctx): number[] => {
    const { token, installation } = requireInstallation(c);
    return installation.repositoryIds.filter(
      (id) => token.repositoryIds === null || token.repositoryIds.includes(id),
    );
  };

  /** A repository the installation token may see, with one of `permissions` at `level` or above. */
  const repositoryFor = (c: Ctx, level: Level, ...permissions: string[]): RepositoryRecord => {
    const { token } = requireInstallation(c);
    const repository = store.repository(c.req.param('owner') ?? '', c.req.param('repo') ?? '');
    if (!repository || !visibleRepositoryIds(c).includes(repository.id)) throw notFound();
    const allowed = permissions.some((name) => {
      const granted = token.permissions[name];
      return granted === 'write' || (granted === 'read' && level === 'read');
    });
    if (!allowed) throw resourceNotAccessible();
    return repository;
  };

  const pullFor = (repository: RepositoryRecord, value: string | undefined): PullRecord => {
    const pull = store.pull(repository.id, integer(value));
    if (!pull) throw notFound();
    return pull;
  };

  const commitFor = (repository: RepositoryRecord, ref: string): string => {
    const sha = store.resolveRef(repository, ref);
    if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
    return sha;
  };

  const sorted = (pulls: PullRecord[], url: URL): PullRecord[] => {
    const sort = url.searchParams.get('sort') ?? 'created';
    const key = sort === 'updated' ? 'updatedAt' : 'createdAt';
    const direction = url.searchParams.get('direction') ?? (sort === 'created' ? 'desc' : 'asc');
    const order = direction === 'asc' ? 1 : -1;
    return [...pulls].sort((a, b) => order * (a[key].localeCompare(b[key]) || a.number - b.number));
  };

  const stateFilter = (url: URL): ((pull: PullRecord) => boolean) => {
    const state = oneOf('state', url.searchParams.get('state') ?? 'open', ['open', 'closed', 'all']);
    return (pull) => state === 'all' || pull.state === state;
  };

  // --- The app itself (JWT) ---

  app.get('/app', (c) => {
    requireApp(c);
    return c.json(render.appObject());
  });

  app.get('/app/installations', (c) => {
    requireApp(c);
    const url = new URL(c.req.url);
    return paged(
      c,
      numberedPage(
        store.state.installations.map((i) => render.installation(i)),
        url,
      ),
    );
  });

  app.get('/app/installations/:installation_id', (c) => {
    requireApp(c);
    const installation = store.installation(integer(c.req.param('installation_id')));
    if (!installation) throw notFound();
    return c.json(render.installation(installation));
  });

  app.post('/app/installations/:installation_id/access_tokens', async (c) => {
    requireApp(c);
    const installation = store.installation(integer(c.req.param('installation_id')));
    if (!installation) throw notFound();
    if (installation.suspendedAt) throw new GitHubError(403, 'This installation has been suspended');
    const { record, repositoryIds } = auth.issueToken(installation, await jsonBody(c));
    return c.json(
      {
        token: record.token,
        expires_at: record.expiresAt,
        permissions: record.permissions,
        repository_selection: 'selected',
        ...(repositoryIds
          ? { repositories: repositoryIds.map((id) => render.repository(store.repositoryById(id))) }
          : {}),
      },
      201,
    );
  });

  // The app itself suspends or unsuspends an installation: 204, and the installation webhook.
  for (const [method, suspended] of [
    ['put', true],
    ['delete', false],
  ] as const) {
    app[method]('/app/installations/:installation_id/suspended', async (c) => {
      requireApp(c);
      const installation = store.installation(integer(c.req.param('installation_id')));
      if (!installation) throw notFound();
      await installations.setSuspended({
        account: installation.account,
        suspended,
        sender: render.botLogin(),
      });
      return c.body(null, 204);
    });
  }

  app.get('/repos/:owner/:repo/installation', (c) => {
    requireApp(c);
    const repository = store.repository(c.req.param('owner'), c.req.param('repo'));
    const installation = repository && store.installationOfRepository(repository.id);
    if (!installation) throw notFound();
    return c.json(render.installation(installation));
  });

  app.get('/app/hook/deliveries', (c) => {
    requireApp(c);
    const newestFirst = [...store.state.deliveries].reverse();
    const page = cursorPage(newestFirst, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((d) => render.deliveryItem(d)),
    );
  });

  app.get('/app/hook/deliveries/:delivery_id', (c) => {
    requireApp(c);
    const delivery = store.state.deliveries.find((d) => d.id === integer(c.req.param('delivery_id')));
    if (!delivery) throw notFound();
    return c.json(render.delivery(delivery));
  });

  // GitHub answers 202 and redelivers in the background; here the redelivery has finished by the
  // time the 202 arrives, which keeps tests deterministic without changing what clients see.
  app.post('/app/hook/deliveries/:delivery_id/attempts', async (c) => {
    requireApp(c);
    const delivery = store.state.deliveries.find((d) => d.id === integer(c.req.param('delivery_id')));
    if (!delivery) throw notFound();
    await webhooks.redeliver(delivery);
    return c.json({}, 202);
  });

  // --- As an installation (installation token) ---

  app.get('/installation/repositories', (c) => {
    const repositories = visibleRepositoryIds(c).map((id) => render.repository(store.repositoryById(id)));
    const page = numberedPage(repositories, new URL(c.req.url));
    return paged(c, page, {
      total_count: repositories.length,
      repository_selection: 'selected',
      repositories: page.items,
    });
  });

  app.get('/repos/:owner/:repo', (c) => c.json(render.repository(repositoryFor(c, 'read', 'metadata'))));

  app.get('/repos/:owner/:repo/pulls', (c) => {
    const repository = repositoryFor(c, 'read', 'pull_requests');
    const url = new URL(c.req.url);
    const inState = stateFilter(url);
    const head = url.searchParams.get('head');
    const base = url.searchParams.get('base');
    const pulls = store.pulls(repository.id).filter((pull) => {
      const headRepository = store.repositoryById(pull.headRepositoryId);
      return (
        inState(pull) &&
        (!head || head.toLowerCase() === `${headRepository.owner}:${pull.headRef}`.toLowerCase()) &&
        (!base || base === pull.baseRef)
      );
    });
    const page = numberedPage(sorted(pulls, url), url);
    return paged(
      c,
      page,
      page.items.map((p) => render.pullRequestSimple(p)),
    );
  });

  app.get('/repos/:owner/:repo/pulls/:pull_number', (c) => {
    const repository = repositoryFor(c, 'read', 'pull_requests');
    return c.json(render.pullRequest(pullFor(repository, c.req.param('pull_number'))));
  });

  app.get('/repos/:owner/:repo/issues', (c) => {
    const repository = repositoryFor(c, 'read', 'issues', 'pull_requests');
    const url = new URL(c.req.url);
    const inState = stateFilter(url);
    const wanted = (url.searchParams.get('labels') ?? '')
      .split(',')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean);
    const pulls = store
      .pulls(repository.id)
      .filter((pull) => inState(pull) && wanted.every((w) => pull.labels.some((l) => l.toLowerCase() === w)));
    const page = numberedPage(sorted(pulls, url), url);
    return paged(
      c,
      page,
      page.items.map((p) => render.issue(p)),
    );
  });

  app.get('/repos/:owner/:repo/issues/:issue_number', (c) => {
    const repository = repositoryFor(c, 'read', 'issues', 'pull_requests');
    return c.json(render.issue(pullFor(repository, c.req.param('issue_number'))));
  });

  app.get('/repos/:owner/:repo/issues/:issue_number/labels', (c) => {
    const repository = repositoryFor(c, 'read', 'issues', 'pull_requests');
    const pull = pullFor(repository, c.req.param('issue_number'));
    const labels = pull.labels.map((name) => render.label(store.ensureLabel(repository.id, name)));
    return paged(c, numberedPage(labels, new URL(c.req.url)));
  });

  app.get('/repos/:owner/:repo/issues/:issue_number/comments', (c) => {
    const repository = repositoryFor(c, 'read', 'issues', 'pull_requests');
    const pull = pullFor(repository, c.req.param('issue_number'));
    const comments = store.state.comments.filter(
      (comment) => comment.repositoryId === repository.id && comment.issueNumber === pull.number,
    );
    const page = numberedPage(comments, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((comment) => render.comment(comment)),
    );
  });

  app.post('/repos/:owner/:repo/issues/:issue_number/comments', async (c) => {
    const repository = repositoryFor(c, 'write', 'issues', 'pull_requests');
    const pull = pullFor(repository, c.req.param('issue_number'));
    const body = requiredString(await jsonBody(c), 'body');
    const now = timestamp();
    const comment = {
      id: store.nextId(),
      repositoryId: repository.id,
      issueNumber: pull.number,
      body,
      author: render.botLogin(),
      createdAt: now,
      updatedAt: now,
    };
    store.state.comments.push(comment);
    store.changed();
    c.header(
      'Location',
      `${render.base}/repos/${repository.owner}/${repository.name}/issues/comments/${comment.id}`,
    );
    return c.json(render.comment(comment), 201);
  });

  const commentFor = (c: Ctx, level: Level) => {
    const repository = repositoryFor(c, level, 'issues', 'pull_requests');
    const id = integer(c.req.param('comment_id'));
    const comment = store.state.comments.find((cm) => cm.id === id && cm.repositoryId === repository.id);
    if (!comment) throw notFound();
    return comment;
  };

  app.get('/repos/:owner/:repo/issues/comments/:comment_id', (c) =>
    c.json(render.comment(commentFor(c, 'read'))),
  );

  app.patch('/repos/:owner/:repo/issues/comments/:comment_id', async (c) => {
    const comment = commentFor(c, 'write');
    comment.body = requiredString(await jsonBody(c), 'body');
    comment.updatedAt = timestamp();
    store.changed();
    return c.json(render.comment(comment));
  });

  // --- Checks and statuses ---

  const applyCheckRun = (run: CheckRunRecord, body: Record<string, unknown>): void => {
    const name = optionalString(body, 'name');
    if (typeof name === 'string') run.name = name;
    const detailsUrl = optionalString(body, 'details_url');
    if (detailsUrl !== undefined) run.detailsUrl = detailsUrl;
    const externalId = optionalString(body, 'external_id');
    if (externalId !== undefined) run.externalId = externalId;
    const startedAt = optionalString(body, 'started_at');
    if (startedAt !== undefined) run.startedAt = startedAt;
    if (body.status !== undefined) run.status = oneOf('status', body.status, CHECK_STATUSES);
    if (body.conclusion !== undefined && body.conclusion !== null) {
      run.conclusion = oneOf('conclusion', body.conclusion, CHECK_CONCLUSIONS);
      run.status = 'completed';
    }
    if (run.status === 'completed') {
      if (!run.conclusion) throw invalidRequest(`"conclusion" wasn't supplied.`);
      run.completedAt = optionalString(body, 'completed_at') ?? run.completedAt ?? timestamp();
    }
    const output = body.output;
    if (output !== undefined) {
      if (typeof output !== 'object' || output === null) {
        throw invalidRequest(`For 'properties/output', ${JSON.stringify(output)} is not an object.`);
      }
      const fields = output as Record<string, unknown>;
      run.output = {
        title: requiredString(fields, 'title'),
        summary: requiredString(fields, 'summary'),
        text: optionalString(fields, 'text') ?? null,
      };
    }
  };

  app.post('/repos/:owner/:repo/check-runs', async (c) => {
    const repository = repositoryFor(c, 'write', 'checks');
    const body = await jsonBody(c);
    const name = requiredString(body, 'name');
    const headSha = commitFor(repository, requiredString(body, 'head_sha'));
    const run: CheckRunRecord = {
      id: store.nextId(),
      repositoryId: repository.id,
      headSha,
      name,
      status: 'queued',
      conclusion: null,
      externalId: null,
      detailsUrl: null,
      startedAt: timestamp(),
      completedAt: null,
      output: { title: null, summary: null, text: null },
    };
    applyCheckRun(run, body);
    store.state.checkRuns.push(run);
    store.changed();
    return c.json(render.checkRun(run), 201);
  });

  const checkRunFor = (c: Ctx, level: Level) => {
    const repository = repositoryFor(c, level, 'checks');
    const id = integer(c.req.param('check_run_id'));
    const run = store.state.checkRuns.find((r) => r.id === id && r.repositoryId === repository.id);
    if (!run) throw notFound();
    return run;
  };

  app.get('/repos/:owner/:repo/check-runs/:check_run_id', (c) =>
    c.json(render.checkRun(checkRunFor(c, 'read'))),
  );

  app.patch('/repos/:owner/:repo/check-runs/:check_run_id', async (c) => {
    const run = checkRunFor(c, 'write');
    const updated = { ...run, output: { ...run.output } };
    applyCheckRun(updated, await jsonBody(c));
    Object.assign(run, updated);
    store.changed();
    return c.json(render.checkRun(run));
  });

  app.get('/repos/:owner/:repo/commits/:ref/check-runs', (c) => {
    const repository = repositoryFor(c, 'read', 'checks');
    const sha = commitFor(repository, c.req.param('ref'));
    const url = new URL(c.req.url);
    const name = url.searchParams.get('check_name');
    const status = url.searchParams.get('status');
    const filter = oneOf('filter', url.searchParams.get('filter') ?? 'latest', ['latest', 'all']);
    const newestFirst = store.state.checkRuns
      .filter((run) => run.repositoryId === repository.id && run.headSha === sha)
      .reverse();
    const runs = (filter === 'latest' ? latestPerName(newestFirst) : newestFirst).filter(
      (run) => (!name || run.name === name) && (!status || run.status === status),
    );
    const page = numberedPage(runs, url);
    return paged(c, page, {
      total_count: runs.length,
      check_runs: page.items.map((run) => render.checkRun(run)),
    });
  });

  app.post('/repos/:owner/:repo/statuses/:sha', async (c) => {
    const repository = repositoryFor(c, 'write', 'statuses');
    const sha = c.req.param('sha').toLowerCase();
    if (!repository.commits.includes(sha)) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
    const body = await jsonBody(c);
    const status = {
      id: store.nextId(),
      repositoryId: repository.id,
      sha,
      state: oneOf('state', body.state, COMMIT_STATES),
      targetUrl: optionalString(body, 'target_url') ?? null,
      description: optionalString(body, 'description') ?? null,
      context: optionalString(body, 'context') ?? 'default',
      creator: render.botLogin(),
      createdAt: timestamp(),
    };
    store.state.statuses.push(status);
    store.changed();
    return c.json(render.status(status), 201);
  });

  app.get('/repos/:owner/:repo/commits/:ref/statuses', (c) => {
    const repository = repositoryFor(c, 'read', 'statuses');
    const sha = commitFor(repository, c.req.param('ref'));
    const statuses = store.state.statuses
      .filter((s) => s.repositoryId === repository.id && s.sha === sha)
      .reverse();
    const page = numberedPage(statuses, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((s) => render.status(s)),
    );
  });

  return app;
}
