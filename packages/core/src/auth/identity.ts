/** Who is calling. Every `/v1` request carries one, set by the API's single auth middleware. */
import { anyProject, type Grant, GrantRole } from './access.ts';

export const AuthMode = {
  /** Local development only: every caller is the Admin identity, no credentials. */
  Dev: 'dev',
  /** Bearer machine tokens, stored hashed. */
  Token: 'token',
} as const;
export type AuthMode = (typeof AuthMode)[keyof typeof AuthMode];

/** What a machine token was issued as before grants per project existed. */
export const Role = { Admin: 'admin', Member: 'member' } as const;
export type Role = (typeof Role)[keyof typeof Role];

export interface Identity {
  /** Stable subject: `admin` in dev mode, the token's subject otherwise. */
  readonly subject: string;
  readonly role: Role;
  /** What the caller may do, per project; checked by `authorize`. */
  readonly grants: readonly Grant[];
  /** Drafts are kept per author; shared-token and anonymous modes share one author. */
  readonly author: string;
}

/** An admin token is admin on every project; a member token a developer on every project. */
export function grantsOfRole(role: Role): Grant[] {
  return [
    {
      role: role === Role.Admin ? GrantRole.Admin : GrantRole.Developer,
      project: anyProject,
      repository: null,
    },
  ];
}

export const devIdentity: Identity = {
  subject: 'admin',
  role: Role.Admin,
  grants: grantsOfRole(Role.Admin),
  author: 'admin',
};
