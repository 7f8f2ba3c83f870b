// Repositories as an installation sees them.

import { Hono } from 'hono';
import { numberedPage } from '../paging.ts';
import { type ApiDeps, type Env, repositoryFor, visibleRepositoryIds } from './context.ts';
import { paged } from './listing.ts';

export function repositories({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.get('/installation/repositories', (c) => {
    const visible = visibleRepositoryIds(c).map((id) => render.repository(store.repositoryById(id)));
    const page = numberedPage(visible, new URL(c.req.url));
    return paged(c, page, {
      total_count: visible.length,
      repository_selection: 'selected',
      repositories: page.items,
    });
  });

  app.get('/repos/:owner/:repo', (c) =>
    c.json(render.repository(repositoryFor(store, c, 'read', 'metadata'))),
  );

  return app;
}
