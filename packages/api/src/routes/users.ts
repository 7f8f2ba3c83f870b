import { Auth, type Clock, ErrorCode } from '@svc/core';
import type { Registry } from '../registry.ts';
import { pageQuery, readJson } from '../request.ts';
import { pageParams, pathName } from './params.ts';

const tag = 'auth';

export function userRoutes(
  registry: Registry,
  deps: { users: Auth.UserStore; audit: Auth.AuditStore; clock: Clock },
): void {
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
        'Create or replace a user: grants, optionally a new password (password mode), disabled. Takes effect at their next request or refresh.',
      tag,
      body: Auth.SaveUserBody,
      responses: { 200: { description: 'The user.', schema: Auth.UserView } },
      errors: [ErrorCode.MalformedJson, ErrorCode.ValidationFailed, ErrorCode.RateLimited],
    },
    async (c) => {
      const username = pathName(c, 'username', 'user');
      return c.json(Auth.userView(await Auth.saveUser(deps, c.get('identity'), username, await readJson(c))));
    },
  );

  registry.add(
    {
      method: 'delete',
      path: '/v1/users/{username}',
      operationId: 'deleteUser',
      permission: 'user:manage',
      summary: 'Delete a user: their sessions and sign-ins stop working at their next request or refresh.',
      tag,
      responses: { 204: { description: 'Deleted.', schema: null } },
      errors: [ErrorCode.NotFound, ErrorCode.RateLimited],
    },
    async (c) => {
      await Auth.removeUser(deps, c.get('identity'), pathName(c, 'username', 'user'));
      return c.body(null, 204);
    },
  );
}
