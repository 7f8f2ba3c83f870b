// The app itself (JWT): who it is, its installations, and the installation of a repository.

import { Hono } from 'hono';
import { notFound } from '../errors.ts';
import { numberedPage } from '../paging.ts';
import { type ApiDeps, type Env, installationFor, requireApp } from './context.ts';
import { paged } from './listing.ts';

export function appInstallations({ store, render }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

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
    return c.json(render.installation(installationFor(store, c)));
  });

  app.get('/repos/:owner/:repo/installation', (c) => {
    requireApp(c);
    const repository = store.repository(c.req.param('owner'), c.req.param('repo'));
    const installation = repository && store.installationOfRepository(repository.id);
    if (!installation) throw notFound();
    return c.json(render.installation(installation));
  });

  return app;
}
