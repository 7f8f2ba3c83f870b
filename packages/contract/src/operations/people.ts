/** Who calls: the caller's identity, machine tokens, people and their sign-ins, the audit trail. */
import { Auth, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { ApiOperation } from '../operation.ts';
import { signInParam, tokenParam, usernameParam } from '../params.ts';
import { pageParams, projectFilter } from '../query.ts';

const tag = 'auth';
const byUser = { username: usernameParam };

export const peopleOperations = {
  getIdentity: {
    method: 'get',
    path: '/v1/auth/identity',
    permission: 'self',
    summary:
      "Who this request's credential is (subject, kind, grants, draft author), and the server's auth mode.",
    tag,
    responses: { 200: { description: "The caller's identity.", json: Auth.IdentityView } },
  },

  listAuditEvents: {
    method: 'get',
    path: '/v1/audit-events',
    permission: 'audit:read',
    summary:
      'The audit trail outside composition lifecycles, newest first: builds published, frontend checks, catalog applies, tokens, users. `project` filters.',
    tag,
    query: v.object({ project: projectFilter, ...pageParams }),
    responses: { 200: { description: 'A page of audit events.', json: Auth.AuditEventList } },
    errors: [ErrorCode.InvalidQuery],
  },

  issueToken: {
    method: 'post',
    path: '/v1/tokens',
    permission: 'token:manage',
    summary:
      'Issue a machine token with explicit grants (Admin only); its subject is token:<name>, never a person, and no other live token has its name. Shown once, stored hashed; expires in 90 days unless told otherwise (at most 365).',
    tag,
    body: Auth.IssueTokenBody,
    responses: {
      201: { description: 'The new token; keep it, it cannot be read again.', json: Auth.IssuedToken },
    },
    errors: [ErrorCode.MalformedJson, ErrorCode.ValidationFailed, ErrorCode.NameTaken, ErrorCode.RateLimited],
  },

  listTokens: {
    method: 'get',
    path: '/v1/tokens',
    permission: 'token:manage',
    summary: 'Machine tokens, newest first, without their secrets (revoked and expired ones included).',
    tag,
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of tokens.', json: Auth.TokenList } },
    errors: [ErrorCode.InvalidQuery],
  },

  revokeToken: {
    method: 'delete',
    path: '/v1/tokens/{id}',
    permission: 'token:manage',
    summary: 'Revoke a machine token; it stops working at once. Revoking twice is no error.',
    tag,
    params: { id: tokenParam },
    responses: { 200: { description: 'The revoked token.', json: Auth.TokenView } },
    errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
  },

  listUsers: {
    method: 'get',
    path: '/v1/users',
    permission: 'user:manage',
    summary: 'People the service knows, by name, with their grants (never their password hash).',
    tag,
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of users.', json: Auth.UserList } },
    errors: [ErrorCode.InvalidQuery],
  },

  saveUser: {
    method: 'put',
    path: '/v1/users/{username}',
    permission: 'user:manage',
    summary:
      'Create or replace a user: grants, optionally a new password (password mode) or, for a new person of an oidc installation, their provider subject; disabled. Grants apply at their next request; a new password or disabling also ends every sign-in they have.',
    tag,
    params: byUser,
    body: Auth.SaveUserBody,
    responses: { 200: { description: 'The user.', json: Auth.UserView } },
    errors: [
      ErrorCode.MalformedJson,
      ErrorCode.ValidationFailed,
      ErrorCode.NameTaken,
      ErrorCode.ConcurrentChange,
      ErrorCode.RateLimited,
    ],
  },

  deleteUser: {
    method: 'delete',
    path: '/v1/users/{username}',
    permission: 'user:manage',
    summary:
      'Delete a user: their sessions and sign-ins stop at their next request; a user created later under the same name is someone else.',
    tag,
    params: byUser,
    responses: { 204: { description: 'Deleted.' } },
    errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
  },

  listSignIns: {
    method: 'get',
    path: '/v1/users/{username}/sign-ins',
    permission: 'user:manage',
    summary: "A person's browser sessions and CLI sign-ins that still work, newest first.",
    tag,
    params: byUser,
    query: v.object(pageParams),
    responses: { 200: { description: 'A page of sign-ins.', json: Auth.SignInList } },
    errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
  },

  endSignIns: {
    method: 'delete',
    path: '/v1/users/{username}/sign-ins',
    permission: 'user:manage',
    summary: 'End every session and CLI sign-in of a person: refused from their next request on.',
    tag,
    params: byUser,
    responses: { 204: { description: 'Ended.' } },
    errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
  },

  endSignIn: {
    method: 'delete',
    path: '/v1/users/{username}/sign-ins/{id}',
    permission: 'user:manage',
    summary: 'End one session or CLI sign-in of a person (its refresh and access tokens with it).',
    tag,
    params: { ...byUser, id: signInParam },
    responses: { 204: { description: 'Ended.' } },
    errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
  },
} as const satisfies Record<string, ApiOperation>;
