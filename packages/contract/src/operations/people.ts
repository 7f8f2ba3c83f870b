/** Who calls: the caller's identity, machine tokens, people and their sign-ins, the audit trail. */
import { Auth, ErrorCode } from '@svc/core';
import type { ApiOperation } from '../operation.ts';
import { signInParam, tokenParam, usernameParam } from '../params.ts';
import { projectFilter } from '../query.ts';
import { list, read, write } from '../shapes.ts';

const tag = 'auth';
const byUser = { username: usernameParam };
const ended = { description: 'Ended.' } as const;

export const peopleOperations = {
  getIdentity: read(
    {
      path: '/v1/auth/identity',
      permission: 'self',
      summary:
        "Who this request's credential is (subject, kind, grants, draft author), and the server's auth mode.",
      tag,
    },
    { description: "The caller's identity.", json: Auth.IdentityView },
  ),

  listAuditEvents: list(
    {
      path: '/v1/audit-events',
      permission: 'audit:read',
      summary:
        'The audit trail outside composition lifecycles, newest first: builds published, frontend checks, catalog applies, tokens, users. `project` filters.',
      tag,
    },
    { description: 'A page of audit events.', json: Auth.AuditEventList },
    { project: projectFilter },
  ),

  issueToken: write(
    'post',
    {
      path: '/v1/tokens',
      permission: 'token:manage',
      summary:
        'Issue a machine token with explicit grants (Admin only); its subject is token:<name>, never a person, and no other live token has its name. Shown once, stored hashed; expires in 90 days unless told otherwise (at most 365).',
      tag,
      body: Auth.IssueTokenBody,
      errors: [ErrorCode.NameTaken],
    },
    201,
    { description: 'The new token; keep it, it cannot be read again.', json: Auth.IssuedToken },
  ),

  listTokens: list(
    {
      path: '/v1/tokens',
      permission: 'token:manage',
      summary: 'Machine tokens, newest first, without their secrets (revoked and expired ones included).',
      tag,
    },
    { description: 'A page of tokens.', json: Auth.TokenList },
  ),

  revokeToken: write(
    'delete',
    {
      path: '/v1/tokens/{id}',
      permission: 'token:manage',
      summary: 'Revoke a machine token; it stops working at once. Revoking twice is no error.',
      tag,
      params: { id: tokenParam },
    },
    200,
    { description: 'The revoked token.', json: Auth.TokenView },
  ),

  listUsers: list(
    {
      path: '/v1/users',
      permission: 'user:manage',
      summary: 'People the service knows, by name, with their grants (never their password hash).',
      tag,
    },
    { description: 'A page of users.', json: Auth.UserList },
  ),

  saveUser: write(
    'put',
    {
      path: '/v1/users/{username}',
      permission: 'user:manage',
      summary:
        'Create or replace a user: grants, optionally a new password (password mode) or, for a new person of an oidc installation, their provider subject; disabled. Grants apply at their next request; a new password or disabling also ends every sign-in they have.',
      tag,
      params: byUser,
      body: Auth.SaveUserBody,
      errors: [ErrorCode.NameTaken, ErrorCode.ConcurrentChange],
    },
    200,
    { description: 'The user.', json: Auth.UserView },
  ),

  deleteUser: write(
    'delete',
    {
      path: '/v1/users/{username}',
      permission: 'user:manage',
      summary:
        'Delete a user: their sessions and sign-ins stop at their next request; a user created later under the same name is someone else.',
      tag,
      params: byUser,
    },
    204,
    { description: 'Deleted.' },
  ),

  listSignIns: list(
    {
      path: '/v1/users/{username}/sign-ins',
      permission: 'user:manage',
      summary: "A person's browser sessions and CLI sign-ins that still work, newest first.",
      tag,
      params: byUser,
    },
    { description: 'A page of sign-ins.', json: Auth.SignInList },
  ),

  endSignIns: write(
    'delete',
    {
      path: '/v1/users/{username}/sign-ins',
      permission: 'user:manage',
      summary: 'End every session and CLI sign-in of a person: refused from their next request on.',
      tag,
      params: byUser,
    },
    204,
    ended,
  ),

  endSignIn: write(
    'delete',
    {
      path: '/v1/users/{username}/sign-ins/{id}',
      permission: 'user:manage',
      summary: 'End one session or CLI sign-in of a person (its refresh and access tokens with it).',
      tag,
      params: { ...byUser, id: signInParam },
    },
    204,
    ended,
  ),
} as const satisfies Record<string, ApiOperation>;
