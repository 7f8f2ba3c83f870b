import { pageOf, type peopleOperations } from '@svc/contract';
import { Auth, type Clock } from '@svc/core';
import type { HandlersOf } from '../bind.ts';

/** The caller's identity, machine tokens, people and their sign-ins, the audit trail. */
export function peopleHandlers(deps: {
  tokens: Auth.TokenStore;
  users: Auth.UserStore;
  passwords: Auth.PasswordHashing;
  signIns: Auth.SignInStore;
  audit: Auth.AuditStore;
  clock: Clock;
  settings: Auth.AuthSettings;
}): HandlersOf<typeof peopleOperations> {
  const userDeps = {
    ...deps,
    mode: deps.settings.mode,
    issuer: deps.settings.mode === Auth.AuthMode.Oidc ? deps.settings.oidc.issuer : null,
  };
  return {
    getIdentity: (c) => c.json(Auth.identityView(c.get('identity'), deps.settings.mode)),
    listAuditEvents: async (c, { query }) =>
      c.json(await deps.audit.list({ project: query.project ?? null }, pageOf(query))),

    async issueToken(c, { body }) {
      const issued = await Auth.issueToken(deps, c.get('identity'), body);
      c.header('cache-control', 'no-store');
      return c.json(issued, 201);
    },
    listTokens: async (c, { query }) => c.json(await deps.tokens.list(pageOf(query))),
    revokeToken: async (c, { path }) =>
      c.json(await Auth.revokeMachineToken(deps, c.get('identity'), path.id)),

    async listUsers(c, { query }) {
      const page = await deps.users.list(pageOf(query));
      return c.json({ items: page.items.map(Auth.userView), next_cursor: page.next_cursor });
    },
    saveUser: async (c, { path, body }) =>
      c.json(Auth.userView(await Auth.saveUser(userDeps, c.get('identity'), path.username, body))),
    async deleteUser(c, { path }) {
      await Auth.removeUser(userDeps, c.get('identity'), path.username);
      return c.body(null, 204);
    },
    listSignIns: async (c, { path, query }) =>
      c.json(await Auth.listSignIns(userDeps, path.username, pageOf(query))),
    async endSignIns(c, { path }) {
      await Auth.endSignIns(userDeps, c.get('identity'), path.username);
      return c.body(null, 204);
    },
    async endSignIn(c, { path }) {
      await Auth.endSignIn(userDeps, c.get('identity'), path.username, path.id);
      return c.body(null, 204);
    },
  };
}
