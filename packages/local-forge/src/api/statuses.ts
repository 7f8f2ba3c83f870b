// Commit statuses: written by the app, listed per commit.

import { Hono } from 'hono';
import { GitHubError } from '../errors.ts';
import { numberedPage } from '../paging.ts';
import { COMMIT_STATES, timestamp } from '../state.ts';
import { type ApiDeps, commitFor, type Env, repositoryFor } from './context.ts';
import { jsonBody, oneOf, optionalString } from './input.ts';
import { paged } from './listing.ts';

export function statuses({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/repos/:owner/:repo/statuses/:sha', async (c) => {
    const repository = repositoryFor(store, c, 'write', 'statuses');
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
    const repository = repositoryFor(store, c, 'read', 'statuses');
    const sha = commitFor(store, repository, c.req.param('ref'));
    const onCommit = store.state.statuses
      .filter((s) => s.repositoryId === repository.id && s.sha === sha)
      .reverse();
    const page = numberedPage(onCommit, new URL(c.req.url));
    return paged(
      c,
      page,
      page.items.map((s) => render.status(s)),
    );
  });

  return app;
}
