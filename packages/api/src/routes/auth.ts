import { Auth, type Clock, ErrorCode } from '@svc/core';
import type { Registry } from '../registry.ts';
import { nameQuery, pageQuery } from '../request.ts';
import { pageParams } from './params.ts';

export function authRoutes(
  registry: Registry,
  deps: { settings: Auth.AuthSettings; audit: Auth.AuditStore; clock: Clock },
): void {
  registry.add(
    {
      method: 'get',
      path: '/v1/auth/identity',
      operationId: 'getIdentity',
      permission: 'self',
      summary:
        "Who this request's credential is (subject, kind, grants, draft author), and the server's auth mode.",
      tag: 'auth',
      responses: { 200: { description: "The caller's identity.", schema: Auth.IdentityView } },
    },
    (c) => c.json(Auth.identityView(c.get('identity'), deps.settings.mode)),
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/audit-events',
      operationId: 'listAuditEvents',
      permission: 'audit:read',
      summary:
        'The audit trail outside composition lifecycles, newest first: builds published, frontend checks, catalog applies, tokens, users. `project` filters.',
      tag: 'auth',
      query: [
        { name: 'project', description: 'Only this project.', schema: { type: 'string' } },
        ...pageParams,
      ],
      responses: { 200: { description: 'A page of audit events.', schema: Auth.AuditEventList } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await deps.audit.list({ project: nameQuery(c, 'project') }, pageQuery(c))),
  );
}
