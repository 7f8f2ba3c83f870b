import { Auth, type Clock, ErrorCode } from '@svc/core';
import type { Registry } from '../registry.ts';
import { pageQuery, readJson } from '../request.ts';
import { pageParams, pathName } from './params.ts';

const tag = 'auth';

export function tokenRoutes(
  registry: Registry,
  deps: { tokens: Auth.TokenStore; audit: Auth.AuditStore; clock: Clock },
): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/tokens',
      operationId: 'issueToken',
      permission: 'token:manage',
      summary:
        'Issue a machine token with explicit grants (Admin only); its subject is token:<name>, never a person, and no other live token has its name. Shown once, stored hashed; expires in 90 days unless told otherwise (at most 365).',
      tag,
      body: Auth.IssueTokenBody,
      responses: {
        201: { description: 'The new token; keep it, it cannot be read again.', schema: Auth.IssuedToken },
      },
      errors: [
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.NameTaken,
        ErrorCode.RateLimited,
      ],
    },
    async (c) => {
      const issued = await Auth.issueToken(deps, c.get('identity'), await readJson(c));
      c.header('cache-control', 'no-store');
      return c.json(issued, 201);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/tokens',
      operationId: 'listTokens',
      permission: 'token:manage',
      summary: 'Machine tokens, newest first, without their secrets (revoked and expired ones included).',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of tokens.', schema: Auth.TokenList } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await deps.tokens.list(pageQuery(c))),
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/tokens/{id}',
      operationId: 'revokeToken',
      permission: 'token:manage',
      summary: 'Revoke a machine token; it stops working at once. Revoking twice is no error.',
      tag,
      responses: { 200: { description: 'The revoked token.', schema: Auth.TokenView } },
      errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
    },
    async (c) => {
      const id = pathName(c, 'id', 'token', 40);
      return c.json(await Auth.revokeMachineToken(deps, c.get('identity'), id));
    },
  );
}
