// Check runs: created, read and updated by the app, listed per commit.

import { Hono } from 'hono';
import { invalidRequest, notFound } from '../errors.ts';
import { numberedPage } from '../paging.ts';
import { CHECK_CONCLUSIONS, CHECK_STATUSES, type CheckRunRecord, timestamp } from '../state.ts';
import type { ForgeStore } from '../store.ts';
import { type ApiDeps, type Ctx, commitFor, type Env, type Level, repositoryFor } from './context.ts';
import { integer, jsonBody, oneOf, optionalString, requiredString } from './input.ts';
import { paged } from './listing.ts';

/** The fields of a create or update body, as GitHub applies them (`conclusion` completes the run). */
function applyCheckRun(run: CheckRunRecord, body: Record<string, unknown>): void {
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
}

/** GitHub's "latest" check-run filter: the newest run of each name. */
function latestPerName(runs: CheckRunRecord[]): CheckRunRecord[] {
  const seen = new Set<string>();
  return runs.filter((run) => !seen.has(run.name) && seen.add(run.name));
}

function checkRunFor(store: ForgeStore, c: Ctx, level: Level): CheckRunRecord {
  const repository = repositoryFor(store, c, level, 'checks');
  const id = integer(c.req.param('check_run_id'));
  const run = store.state.checkRuns.find((r) => r.id === id && r.repositoryId === repository.id);
  if (!run) throw notFound();
  return run;
}

function commitCheckRuns(store: ForgeStore, c: Ctx): { url: URL; runs: CheckRunRecord[] } {
  const repository = repositoryFor(store, c, 'read', 'checks');
  const sha = commitFor(store, repository, c.req.param('ref') ?? '');
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
  return { url, runs };
}

export function checkRuns({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/repos/:owner/:repo/check-runs', async (c) => {
    const repository = repositoryFor(store, c, 'write', 'checks');
    const body = await jsonBody(c);
    const name = requiredString(body, 'name');
    const headSha = commitFor(store, repository, requiredString(body, 'head_sha'));
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

  app.get('/repos/:owner/:repo/check-runs/:check_run_id', (c) =>
    c.json(render.checkRun(checkRunFor(store, c, 'read'))),
  );

  app.patch('/repos/:owner/:repo/check-runs/:check_run_id', async (c) => {
    const run = checkRunFor(store, c, 'write');
    // Applied to a copy first, so a refused body changes nothing.
    const updated = { ...run, output: { ...run.output } };
    applyCheckRun(updated, await jsonBody(c));
    // As GitHub: once a run is completed, its status and conclusion stay what they are.
    if (run.status === 'completed') {
      Object.assign(updated, {
        status: run.status,
        conclusion: run.conclusion,
        completedAt: run.completedAt,
      });
    }
    Object.assign(run, updated);
    store.changed();
    return c.json(render.checkRun(run));
  });

  app.get('/repos/:owner/:repo/commits/:ref/check-runs', (c) => {
    const { url, runs } = commitCheckRuns(store, c);
    const page = numberedPage(runs, url);
    return paged(c, page, {
      total_count: runs.length,
      check_runs: page.items.map((run) => render.checkRun(run)),
    });
  });

  return app;
}
