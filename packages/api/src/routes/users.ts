import { Auth, type Clock, ErrorCode, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import type { Registry } from '../registry.ts';
import { pageQuery, readJson } from '../request.ts';
import { pageParams } from './params.ts';

const tag = 'auth';

/** A name or sign-in id that cannot exist is simply not found (and never reaches the table). */
function username(c: Context): string {
  const value = c.req.param('username') ?? '';
  if (!Auth.usernameShape.test(value))
    throw new ProblemError(ErrorCode.NotFound, `user "${value}" not found`);
  return value;
}

function signInId(c: Context): string {
  const value = c.req.param('id') ?? '';
  if (!/^(ses|sig)-[a-z0-9]{1,40}$/.test(value)) {
    throw new ProblemError(ErrorCode.NotFound, `sign-in "${value}" not found`);
  }
  return value;
}

export function userRoutes(
  registry: Registry,
  deps: {
    users: Auth.UserStore;
    signIns: Auth.SignInStore;
    audit: Auth.AuditStore;
    clock: Clock;
    settings: Auth.AuthSettings;
  },
): void {
  const userDeps = {
    ...deps,
    mode: deps.settings.mode,
    issuer: deps.settings.mode === Auth.AuthMode.Oidc ? deps.settings.oidc.issuer : null,
  };

  registry.add(
    {
      method: 'get',
      path: '/v1/users',
      operationId: 'listUsers',
      permission: 'user:manage',
      summary: 'People the service knows, by name, with their grants (never their password hash).',
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of users.', schema: Auth.UserList } },
      errors: [ErrorCode.InvalidQuery],
    },
    async (c) => {
      const page = await deps.users.list(pageQuery(c));
      return c.json({ items: page.items.map(Auth.userView), next_cursor: page.next_cursor });
    },
  );

  registry.add(
    {
      method: 'put',
      path: '/v1/users/{username}',
      operationId: 'saveUser',
      permission: 'user:manage',
      summary:
        'Create or replace a user: grants, optionally a new password (password mode) or, for a new person of an oidc installation, their provider subject; disabled. Grants apply at their next request; a new password or disabling also ends every sign-in they have.',
      tag,
      body: Auth.SaveUserBody,
      responses: { 200: { description: 'The user.', schema: Auth.UserView } },
      errors: [
        ErrorCode.MalformedJson,
        ErrorCode.ValidationFailed,
        ErrorCode.NameTaken,
        ErrorCode.ConcurrentChange,
        ErrorCode.RateLimited,
      ],
    },
    async (c) =>
      c.json(Auth.userView(await Auth.saveUser(userDeps, c.get('identity'), username(c), await readJson(c)))),
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/users/{username}',
      operationId: 'deleteUser',
      permission: 'user:manage',
      summary:
        'Delete a user: their sessions and sign-ins stop at their next request; a user created later under the same name is someone else.',
      tag,
      responses: { 204: { description: 'Deleted.', schema: null } },
      errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
    },
    async (c) => {
      await Auth.removeUser(userDeps, c.get('identity'), username(c));
      return c.body(null, 204);
    },
  );

  registry.add(
    {
      method: 'get',
      path: '/v1/users/{username}/sign-ins',
      operationId: 'listSignIns',
      permission: 'user:manage',
      summary: "A person's browser sessions and CLI sign-ins that still work, newest first.",
      tag,
      query: pageParams,
      responses: { 200: { description: 'A page of sign-ins.', schema: Auth.SignInList } },
      errors: [ErrorCode.NotFound, ErrorCode.InvalidQuery],
    },
    async (c) => c.json(await Auth.listSignIns(userDeps, username(c), pageQuery(c))),
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/users/{username}/sign-ins',
      operationId: 'endSignIns',
      permission: 'user:manage',
      summary: 'End every session and CLI sign-in of a person: refused from their next request on.',
      tag,
      responses: { 204: { description: 'Ended.', schema: null } },
      errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
    },
    async (c) => {
      await Auth.endSignIns(userDeps, c.get('identity'), username(c));
      return c.body(null, 204);
    },
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/users/{username}/sign-ins/{id}',
      operationId: 'endSignIn',
      permission: 'user:manage',
      summary: 'End one session or CLI sign-in of a person (its refresh and access tokens with it).',
      tag,
      responses: { 204: { description: 'Ended.', schema: null } },
      errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
    },
    async (c) => {
      await Auth.endSignIn(userDeps, c.get('identity'), username(c), signInId(c));
      return c.body(null, 204);
    },
  );
}
