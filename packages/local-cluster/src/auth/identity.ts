// Who a request comes from: a bearer token of the cluster's users, as a real API server's token
// authenticator answers (a user and its groups, `system:authenticated` added), or nobody
// (`system:anonymous`, group `system:unauthenticated`, as with `--anonymous-auth`).

/** One identity of the cluster, as its kubeconfig presents it. */
export interface LocalUser {
  /** The bearer token that authenticates it. */
  token: string;
  /** Its user name, e.g. `preview-composition-worker` or `admin`. */
  name: string;
  /** Its groups; `system:masters` may do anything, as on a real cluster. */
  groups?: readonly string[];
}

/** The authenticated user a request acts as (upstream's `user.Info`). */
export interface UserInfo {
  name: string;
  groups: readonly string[];
}

export const Groups = {
  /** Every request from it is allowed before RBAC is asked (upstream's privileged group). */
  masters: 'system:masters',
  authenticated: 'system:authenticated',
  unauthenticated: 'system:unauthenticated',
} as const;

export const anonymous: UserInfo = { name: 'system:anonymous', groups: [Groups.unauthenticated] };

/** Without users the cluster authenticates nobody and allows everything: this is who everyone is. */
export const unauthenticatedAdmin: UserInfo = {
  name: 'system:admin',
  groups: [Groups.masters, Groups.authenticated],
};

export interface Authenticator {
  /** The user of an `Authorization` header: anonymous without one, undefined for a token nobody has. */
  authenticate(header: string | undefined): UserInfo | undefined;
}

export function tokenAuthenticator(users: readonly LocalUser[]): Authenticator {
  const byToken = new Map<string, UserInfo>();
  for (const user of users) {
    if (!user.token) throw new Error(`user "${user.name}" needs a token`);
    if (byToken.has(user.token)) throw new Error(`user "${user.name}" shares its token with another user`);
    const groups = (user.groups ?? []).filter((g) => g !== Groups.authenticated);
    byToken.set(user.token, { name: user.name, groups: [...groups, Groups.authenticated] });
  }
  return {
    authenticate(header) {
      if (header === undefined) return anonymous;
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match?.[1]) return undefined;
      return byToken.get(match[1]);
    },
  };
}

export const isPrivileged = (user: UserInfo) => user.groups.includes(Groups.masters);
