/**
 * Auth for the local stack: `dev` unless asked otherwise; `password` and `oidc` come with seeded
 * people (and, for oidc, a real local identity provider whose groups map to their grants).
 */
import { Auth } from '@svc/core';
import { type LocalIdentityProvider, startLocalIdentityProvider } from './identity-provider.ts';

export interface SeedUser {
  username: string;
  password: string;
  /** The identity provider group that gives `grants` in oidc mode. */
  group: string;
  grants: Auth.Grant[];
  /** oidc: the name the provider's username claim gives (default: `username`, also the `sub`). */
  claimedName?: string;
}

/** Who `npm start -- --auth password|oidc` knows; the banner prints them. */
export const localUsers: readonly SeedUser[] = [
  {
    username: 'alice',
    password: 'alice-local-password',
    group: 'svc-admins',
    grants: [{ role: 'admin', project: '*', repository: null }],
  },
  {
    username: 'bob',
    password: 'bob-local-password',
    group: 'demo-developers',
    grants: [{ role: 'developer', project: 'demo', repository: null }],
  },
  {
    username: 'carol',
    password: 'carol-local-password',
    group: 'demo-viewers',
    grants: [{ role: 'viewer', project: 'demo', repository: null }],
  },
];

export interface LocalAuthOptions {
  mode: Auth.AuthMode;
  /** AUTH_SETTINGS fields: limits, the common grants of shared-token and anonymous modes. */
  settings?: { limits?: Partial<Auth.AuthSettings['limits']>; grants?: Auth.Grant[] };
  /** shared-token mode's secret (default: a fixed local one). */
  sharedToken?: string;
  users?: readonly SeedUser[];
}

export interface LocalAuth {
  /** The auth part of the stack's environment: `AUTH_MODE`, `AUTH_SETTINGS` and the mode's secret. */
  environment: Record<string, string>;
  /** oidc mode: the provider, to be told the service's callback once the API listens. */
  identityProvider: LocalIdentityProvider | null;
}

/** The mode's variables as a deployed API is given them, and oidc mode's provider, started. */
export async function localAuth(
  options: LocalAuthOptions,
  where: { host: string; publicOrigin: string },
): Promise<LocalAuth> {
  const { host } = where;
  const users = options.users ?? localUsers;
  let identityProvider: LocalIdentityProvider | null = null;
  const body: Record<string, unknown> = { public_origin: where.publicOrigin, ...options.settings };
  const env: Record<string, string> = {
    AUTH_MODE: options.mode,
    AUTH_SHARED_TOKEN: options.sharedToken ?? 'local-shared-token-0123456789abcdef',
  };
  if (options.mode === Auth.AuthMode.Oidc) {
    identityProvider = await startLocalIdentityProvider(
      Object.fromEntries(
        users.map((u) => [
          u.username,
          {
            password: u.password,
            groups: [u.group],
            ...(u.claimedName ? { preferredUsername: u.claimedName } : {}),
          },
        ]),
      ),
      host,
    );
    body.oidc = {
      issuer: identityProvider.issuer,
      client_id: identityProvider.clientId,
      claim_grants: Object.fromEntries(users.map((u) => [u.group, u.grants])),
    };
    env.OIDC_CLIENT_SECRET = identityProvider.clientSecret;
  }
  env.AUTH_SETTINGS = JSON.stringify(body);
  return { environment: env, identityProvider };
}

/** Password mode's people, written with hashed passwords (and skipped when already there). */
export async function seedUsers(
  deps: Auth.PasswordDeps,
  users: readonly SeedUser[],
  now: Date,
): Promise<void> {
  for (const user of users) {
    if (await deps.users.get(user.username)) continue;
    await Auth.provisionUser(deps, {
      username: user.username,
      grants: user.grants,
      password: user.password,
      now,
    });
  }
}
