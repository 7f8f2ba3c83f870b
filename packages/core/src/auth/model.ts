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

export interface Session extends PersonRef {
  id: string;
  /** Grants the identity provider's claims gave at sign-in (oidc); [] in password mode. */
  claim_grants: Grant[];
  created_at: string;
  idle_expires_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface AuthorizationCode extends PersonRef {
  claim_grants: Grant[];
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: string;
}

/** One CLI sign-in: the family every rotated refresh token and access token belongs to. */
export interface SignInGrant extends PersonRef {
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
