import { Auth, addSeconds, type Clock, ErrorCode, parseOrThrow } from '@svc/core';
import type { Registry } from '../registry.ts';
import { readJson } from '../request.ts';

export function tokenRoutes(registry: Registry, deps: { tokens: Auth.TokenStore; clock: Clock }): void {
  registry.add(
    {
      method: 'post',
      path: '/v1/tokens',
      operationId: 'issueToken',
      permission: 'token:manage',
      summary: 'Issue a machine token (Admin only). The token is shown once and stored hashed.',
      tag: 'auth',
      body: Auth.IssueTokenBody,
      responses: {
        201: { description: 'The new token; keep it, it cannot be read again.', schema: Auth.IssuedToken },
      },
      errors: [ErrorCode.Forbidden, ErrorCode.MalformedJson, ErrorCode.ValidationFailed],
    },
    async (c) => {
      const body = parseOrThrow(Auth.IssueTokenBody, await readJson(c));
      const now = deps.clock.now();
      const expiresAt = body.expires_in_days
        ? addSeconds(now, body.expires_in_days * 86400).toISOString()
        : null;
      const token = await deps.tokens.issue({
        subject: body.subject,
        role: body.role,
        now,
        expires_at: expiresAt,
      });
      c.header('cache-control', 'no-store');
      return c.json({ token, subject: body.subject, role: body.role, expires_at: expiresAt }, 201);
    },
  );
}
