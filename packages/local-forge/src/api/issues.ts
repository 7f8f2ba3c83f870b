// Pull requests as issues: listed by labels, read one by one, with their labels.

import { Hono } from 'hono';
import { numberedPage } from '../paging.ts';
import { type ApiDeps, type Env, pullFor, repositoryFor } from './context.ts';
import { paged, sorted, stateFilter } from './listing.ts';

export function issues({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/repos/:owner/:repo/issues', (c) => {
    const repository = repositoryFor(store, c, 'read', 'issues', 'pull_requests');
    const url = new URL(c.req.url);
    const inState = stateFilter(url);
    const wanted = (url.searchParams.get('labels') ?? '')
      .split(',')
      .map((l) => l.trim().toLowerCase())
      .filter(Boolean);
    const matching = store
      .pulls(repository.id)
      .filter((pull) => inState(pull) && wanted.every((w) => pull.labels.some((l) => l.toLowerCase() === w)));
    const page = numberedPage(sorted(matching, url), url);
    return paged(
      c,
      page,
      page.items.map((p) => render.issue(p)),
    );
  });

  app.get('/repos/:owner/:repo/issues/:issue_number', (c) => {
    const repository = repositoryFor(store, c, 'read', 'issues', 'pull_requests');
    return c.json(render.issue(pullFor(store, repository, c.req.param('issue_number'))));
  });

  app.get('/repos/:owner/:repo/issues/:issue_number/labels', (c) => {
    const repository = repositoryFor(store, c, 'read', 'issues', 'pull_requests');
    const pull = pullFor(store, repository, c.req.param('issue_number'));
    const labels = pull.labels.map((name) => render.label(store.ensureLabel(repository.id, name)));
    return paged(c, numberedPage(labels, new URL(c.req.url)));
  });

  return app;
}
