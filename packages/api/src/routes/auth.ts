import { Auth } from '@svc/core';
import type { Registry } from '../registry.ts';

export function authRoutes(registry: Registry, deps: { auth: { mode: Auth.AuthMode } }): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/auth/identity',
      operationId: 'getIdentity',
      permission: 'self',
      summary: "Who this request's credential is, and the server's auth mode.",
      tag: 'auth',
      responses: { 200: { description: "The caller's identity.", schema: Auth.IdentityView } },
    },
    (c) => {
      const { subject, role, author } = c.get('identity');
      return c.json({ subject, role, author, mode: deps.auth.mode } satisfies Auth.IdentityView);
    },
  );
}
