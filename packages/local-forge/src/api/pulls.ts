// Pull requests: listed with GitHub's filters, read one by one.

import { Hono } from 'hono';
import { numberedPage } from '../paging.ts';
import { type ApiDeps, type Env, pullFor, repositoryFor } from './context.ts';
import { paged, sorted, stateFilter } from './listing.ts';

export function pulls({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/repos/:owner/:repo/pulls', (c) => {
    const repository = repositoryFor(store, c, 'read', 'pull_requests');
    const url = new URL(c.req.url);
    const inState = stateFilter(url);
    const head = url.searchParams.get('head');
    const base = url.searchParams.get('base');
    const matching = store.pulls(repository.id).filter((pull) => {
      const headRepository = store.repositoryById(pull.headRepositoryId);
      return (
        inState(pull) &&
        (!head || head.toLowerCase() === `${headRepository.owner}:${pull.headRef}`.toLowerCase()) &&
        (!base || base === pull.baseRef)
      );
    });
    const page = numberedPage(sorted(matching, url), url);
    return paged(
      c,
      page,
      page.items.map((p) => render.pullRequestSimple(p)),
    );
  });

  app.get('/repos/:owner/:repo/pulls/:pull_number', (c) => {
    const repository = repositoryFor(store, c, 'read', 'pull_requests');
    return c.json(render.pullRequest(pullFor(store, repository, c.req.param('pull_number'))));
  });

  return app;
}
