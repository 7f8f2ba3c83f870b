/**
 * Who is calling. Every request carries one, made by the API's single auth middleware from
 * whatever the installation's mode accepts (a bearer token, a session cookie, a shared secret or
 * nothing at all). Subjects are namespaced by kind, so a machine token can never claim a person.
 */
import { anyProject, type Grant, GrantRole } from './access.ts';

export const AuthMode = {
  /** Local development only: every caller is the Admin identity, no credentials. */
  Dev: 'dev',
  /** Bearer machine tokens only. */
  Token: 'token',
  /** One configured shared secret: every caller is the same identity. */
  SharedToken: 'shared-token',
  /** No credentials at all: every caller is the same anonymous identity. */
  Anonymous: 'anonymous',
  /** People kept by the service, signing in with a password. */
  Password: 'password',
  /** People signing in through an external OpenID Connect provider. */
  Oidc: 'oidc',
} as const;
export type AuthMode = (typeof AuthMode)[keyof typeof AuthMode];

/** Modes where people sign in (browser sessions, `svc auth login`). */
export const signInModes: readonly AuthMode[] = [AuthMode.Password, AuthMode.Oidc];

export const IdentityKind = {
  User: 'user',
  Machine: 'machine',
  Shared: 'shared',
  Anonymous: 'anonymous',
  Dev: 'dev',
} as const;
export type IdentityKind = (typeof IdentityKind)[keyof typeof IdentityKind];

/** How the request proved who it is. */
export const CredentialKind = {
  None: 'none',
  MachineToken: 'machine_token',
  AccessToken: 'access_token',
  Session: 'session',
  SharedToken: 'shared_token',
} as const;
export type CredentialKind = (typeof CredentialKind)[keyof typeof CredentialKind];

interface Credential {
  readonly kind: CredentialKind;
  /** The token, session or sign-in grant id (never a secret), for revocation and audit. */
  readonly id: string | null;
}

export interface Identity {
  /** `user:<name>`, `token:<name>`, `shared`, `anonymous` or `admin` (dev). */
  readonly subject: string;
  readonly kind: IdentityKind;
  /** What the caller may do, per project; checked by `authorize`. */
  readonly grants: readonly Grant[];
  /** Drafts are kept per author; shared-token and anonymous modes share one author. */
  readonly author: string;
  readonly credential: Credential;
}

export const userSubject = (username: string) => `user:${username}`;
export const machineSubject = (name: string) => `token:${name}`;

/** What a machine token was issued as before grants per project existed. */
export const Role = { Admin: 'admin', Member: 'member' } as const;
export type Role = (typeof Role)[keyof typeof Role];

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
  kind: IdentityKind.Dev,
  grants: grantsOfRole(Role.Admin),
  author: 'admin',
  credential: { kind: CredentialKind.None, id: null },
};

/** The one identity every caller of a shared-token or anonymous installation is: one draft author too. */
function commonIdentity(kind: 'shared' | 'anonymous', grants: readonly Grant[]): Identity {
  const credential = kind === IdentityKind.Shared ? CredentialKind.SharedToken : CredentialKind.None;
  return { subject: kind, kind, grants, author: kind, credential: { kind: credential, id: null } };
}

export const sharedIdentity = (grants: readonly Grant[]) => commonIdentity(IdentityKind.Shared, grants);
export const anonymousIdentity = (grants: readonly Grant[]) => commonIdentity(IdentityKind.Anonymous, grants);

/** The union of two grant lists without repeats. */
export function mergeGrants(...lists: readonly (readonly Grant[])[]): Grant[] {
  const seen = new Map<string, Grant>();
  for (const grant of lists.flat()) seen.set(`${grant.role}|${grant.project}|${grant.repository}`, grant);
  return [...seen.values()];
}
