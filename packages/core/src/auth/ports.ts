import type { Page, PageRequest } from '../paging.ts';
import type {
  AccessToken,
  AuthorizationCode,
  MachineToken,
  OidcSubject,
  PendingSignIn,
  PersonRef,
  ProviderSignIn,
  ProviderTokens,
  RefreshUse,
  Session,
  SignInGrant,
  User,
} from './model.ts';
import type { AuditEvent } from './schema.ts';

export interface AuditStore {
  append(event: AuditEvent): Promise<void>;
  /** Newest first; `project` filters. */
  list(filter: { project: string | null }, page: PageRequest): Promise<Page<AuditEvent>>;
}

export interface RateLimiter {
  /**
   * Counts one hit on `key` in the window containing `now`; false once `limit` hits were already
   * counted in it (the refused hit is not counted).
   */
  hit(key: string, limit: number, windowSeconds: number, now: Date): Promise<boolean>;
  /** The hits already counted on `key` in the window containing `now`. */
  count(key: string, windowSeconds: number, now: Date): Promise<number>;
}

/** Everything keyed by `hash`: the SHA-256 of the secret the client holds. */
export interface SignInStore {
  putSession(hash: string, session: Session): Promise<void>;
  getSession(hash: string, now: Date): Promise<Session | null>;
  touchSession(hash: string, idleExpiresAt: string): Promise<void>;
  revokeSession(hash: string, now: Date): Promise<void>;
  putCode(hash: string, code: AuthorizationCode): Promise<void>;
  /** Removes and returns the live code: a second take of the same code gets null. */
  takeCode(hash: string, now: Date): Promise<AuthorizationCode | null>;
  putGrant(grant: SignInGrant): Promise<void>;
  getGrant(id: string): Promise<SignInGrant | null>;
  revokeGrant(id: string, now: Date): Promise<void>;
  putRefresh(hash: string, entry: { grant_id: string; expires_at: string }): Promise<void>;
  /** Marks the refresh token used; null when unknown or past its expiry. */
  useRefresh(hash: string, now: Date): Promise<RefreshUse | null>;
  putAccess(hash: string, token: AccessToken): Promise<void>;
  getAccess(hash: string, now: Date): Promise<AccessToken | null>;
  putPending(hash: string, pending: PendingSignIn): Promise<void>;
  takePending(hash: string, now: Date): Promise<PendingSignIn | null>;
  /** The person's sessions and CLI sign-ins of `credentials_epoch`, not revoked, newest first. */
  listSignIns(person: PersonRef, page: PageRequest): Promise<Page<Session | SignInGrant>>;
  /** Revokes the person's session or CLI sign-in `id`; false when they have none by that id. */
  revokeSignIn(userId: string, id: string, now: Date): Promise<boolean>;
  /** A new identity-provider sign-in (its tokens sealed at rest by the store). */
  putProviderSignIn(record: ProviderSignIn): Promise<void>;
  getProviderSignIn(id: string): Promise<ProviderSignIn | null>;
  /** Replaces it if its `lock_version` is still `expected`; false when it changed meanwhile. */
  replaceProviderSignIn(record: ProviderSignIn, expected: number): Promise<boolean>;
}

/** What the identity provider says of a person now, asked with their tokens (openid-client in packages/api). */
export type ProviderAnswer =
  | { kind: 'claims'; claims: Record<string, unknown>; tokens: ProviderTokens }
  /** The provider will not say: the person is gone there, or the tokens were revoked or expired. */
  | { kind: 'refused'; reason: string };

export interface IdentityProviderPort {
  /** Throws when the provider cannot be reached; answers `refused` when it refuses. */
  recheck(tokens: ProviderTokens, sub: string): Promise<ProviderAnswer>;
}

export interface TokenStore {
  /**
   * Stores the token under the SHA-256 of `secret` (the plain secret is never written); false when
   * a live token (not expired, not revoked) already has its name.
   */
  issue(token: MachineToken, secret: string, now: Date): Promise<boolean>;
  /**
   * The token `secret` belongs to, live or not (`tokenStanding` says which): null when none does,
   * or once a revoked or expired token's record is gone.
   */
  find(secret: string): Promise<MachineToken | null>;
  /** Newest first, revoked and expired ones included. */
  list(page: PageRequest): Promise<Page<MachineToken>>;
  /** Marks the token revoked (`changed` false when it already was); null when no token has that id. */
  revoke(id: string, now: Date): Promise<{ token: MachineToken; changed: boolean } | null>;
}

export interface UserStore {
  get(username: string): Promise<User | null>;
  /** The person the identity provider's subject belongs to (oidc). */
  getBySubject(subject: OidcSubject): Promise<User | null>;
  /** Writes a new person; false when the name (or the subject) is taken. */
  create(user: User): Promise<boolean>;
  /** Replaces the record if it is still the one `read` (same id and epoch); false otherwise. */
  replace(user: User, read: PersonRef): Promise<boolean>;
  /** Moves the credentials epoch on by one; false when there is no such user. */
  endSignIns(username: string, at: string): Promise<boolean>;
  /** A rehash: swaps the hash only if it is still `from` (never moves the epoch). */
  setPasswordHash(username: string, from: string, to: string): Promise<void>;
  /** Deletes the record (and its subject link); false when there was no such user. */
  delete(username: string): Promise<boolean>;
  /** By name. */
  list(page: PageRequest): Promise<Page<User>>;
}
