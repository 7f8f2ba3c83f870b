// The app acting on one of its installations (JWT): an access token, suspension.

import { Hono } from 'hono';
import { GitHubError } from '../errors.ts';
import { type ApiDeps, type Env, installationFor, requireApp } from './context.ts';
import { jsonBody } from './input.ts';

export function installationAccess({ store, auth, render, installations }: ApiDeps): Hono<Env> {
  const app = new Hono<Env>();

  app.post('/app/installations/:installation_id/access_tokens', async (c) => {
    requireApp(c);
    const installation = installationFor(store, c);
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
      const installation = installationFor(store, c);
      await installations.setSuspended({
        account: installation.account,
        suspended,
        sender: render.botLogin(),
      });
      return c.body(null, 204);
    });
  }

  return app;
}
