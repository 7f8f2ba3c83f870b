/** Who is calling. Every `/v1` request carries one, set by the API's single auth middleware. */

export const AuthMode = {
  /** Local development only: every caller is the Admin identity, no credentials. */
  Dev: 'dev',
  /** Bearer machine tokens, stored hashed. */
  Token: 'token',
} as const;
export type AuthMode = (typeof AuthMode)[keyof typeof AuthMode];

export const Role = { Admin: 'admin', Member: 'member' } as const;
export type Role = (typeof Role)[keyof typeof Role];

export interface Identity {
  /** Stable subject: `admin` in dev mode, the token's subject otherwise. */
  readonly subject: string;
  readonly role: Role;
  /** Drafts are kept per author; shared-token and anonymous modes share one author. */
  readonly author: string;
}

export const devIdentity: Identity = { subject: 'admin', role: Role.Admin, author: 'admin' };
