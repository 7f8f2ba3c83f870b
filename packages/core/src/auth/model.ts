import type { Grant } from './access.ts';

/** Who a person is at their identity provider. */
export interface OidcSubject {
  issuer: string;
  sub: string;
}

export interface User {
  /** `usr-…`, given once: sessions and sign-ins name it, so a re-created name is a new person. */
  id: string;
  username: string;
  grants: Grant[];
  /** `scrypt$N$r$p$salt$hash`; null for a person who signs in only through the identity provider. */
  password_hash: string | null;
  disabled: boolean;
  /** Moves on whenever every sign-in of this person must end. */
  credentials_epoch: number;
  oidc_subject: OidcSubject | null;
  created_at: string;
  updated_at: string;
}

/** What a credential names of the person it was issued to. */
export interface PersonRef {
  username: string;
  user_id: string;
  credentials_epoch: number;
}

export interface MachineToken {
  /** Public id (`tok-…`): lists and revocation name it; the secret is never stored. */
  id: string;
  name: string;
  subject: string;
  grants: Grant[];
  created_at: string;
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * What a credential made from an identity-provider sign-in names of it: its grants from the
 * provider's claims are read there, kept up to date with the provider (oidc). Null in password mode,
 * and on credentials made before such sign-ins were kept (which oidc mode no longer accepts).
 */
interface FromProvider {
  provider_sign_in: string | null;
}

export interface Session extends PersonRef, FromProvider {
  id: string;
  /** Unused since grants from the provider live on its sign-in (`provider_sign_in`); []. */
  claim_grants: Grant[];
  created_at: string;
  idle_expires_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface AuthorizationCode extends PersonRef, FromProvider {
  claim_grants: Grant[];
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
}

/** One CLI sign-in: the family every rotated refresh token and access token belongs to. */
export interface SignInGrant extends PersonRef, FromProvider {
  id: string;
  claim_grants: Grant[];
  client_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** Names its sign-in grant only: the person's grants and epoch are read at every use. */
export interface AccessToken {
  grant_id: string;
  username: string;
  expires_at: string;
}

/** The provider's own tokens for a person: what re-reads their claims. */
export interface ProviderTokens {
  refresh_token: string | null;
  access_token: string | null;
  /** When `access_token` stops working; null when the provider did not say. */
  access_expires_at: string | null;
}

/**
 * One sign-in at the identity provider (`idp-…`): the browser session it made and every CLI sign-in
 * made from that session name it, and read their grants from the provider's claims here.
 */
export interface ProviderSignIn {
  id: string;
  user_id: string;
  /** The provider's subject the sign-in was for: a re-read naming another ends it. */
  sub: string;
  /** The grants the claims gave when last read. */
  claim_grants: Grant[];
  tokens: ProviderTokens;
  /** When the claims were last read from the provider. */
  checked_at: string;
  /** A re-read in flight holds the record until then, so two never use one refresh token. */
  leased_until: string | null;
  /** Set when the provider refused: every credential made from it stops. */
  ended_at: string | null;
  created_at: string;
  expires_at: string;
  /** Every write is conditional on it. */
  lock_version: number;
}

/** An identity-provider sign-in in flight, kept under the hash of the browser's sign-in cookie. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  expires_at: string;
}

export type RefreshUse =
  | { outcome: 'fresh'; grant_id: string }
  /** Already used once: someone replays it. */
  | { outcome: 'reused'; grant_id: string };

export const AuditAction = {
  BuildPublished: 'build.published',
  FrontendCheckRecorded: 'frontend.check_recorded',
  TestResultRecorded: 'composition.test_recorded',
  PreviewPolicySaved: 'preview_policy.saved',
  PreviewPolicyDeleted: 'preview_policy.deleted',
  FrontendPublished: 'frontend.published',
  CatalogApplied: 'catalog.applied',
  TokenIssued: 'token.issued',
  TokenRevoked: 'token.revoked',
  UserSaved: 'user.saved',
  UserDeleted: 'user.deleted',
  UserSignInsEnded: 'user.sign_ins_ended',
  InstallationDrained: 'installation.drained',
  DeadLettersReplayed: 'dead_letters.replayed',
} as const;

export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];
