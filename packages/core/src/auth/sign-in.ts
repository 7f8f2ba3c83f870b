/**
 * Signed-in people: browser sessions, and the service's own OAuth 2.0 authorization server for its
 * CLI (authorization code + PKCE S256 to a loopback redirect, RFC 8252; opaque access tokens of
 * 15 minutes; refresh tokens rotated on use within a 30-day grant, a replayed one revoking the
 * whole grant). Every secret is stored as its SHA-256 only.
 */
import { addSeconds, type Clock } from '../clock.ts';
import { newSortableId } from '../names.ts';
import type { Grant } from './access.ts';
import {
  AuthMode,
  CredentialKind,
  type Identity,
  IdentityKind,
  mergeGrants,
  userSubject,
} from './identity.ts';
import type { PersonRef, Session, SignInGrant, User } from './model.ts';
import type { SignInStore, UserStore } from './ports.ts';
import { type ProviderDeps, providerGrants } from './provider-sign-ins.ts';
import type { TokenAnswer } from './schema.ts';
import { hashSecret, newSecret, pkceMatches, SecretPrefix } from './secrets.ts';
import { personNow, personRef } from './users.ts';

export const Lifetime = {
  /** A browser session ends after this long without a request… */
  sessionIdleSeconds: 2 * 3600,
  /** …and this long after sign-in, whatever happens. */
  sessionAbsoluteSeconds: 12 * 3600,
  accessTokenSeconds: 15 * 60,
  /** A CLI sign-in refreshes for this long after the sign-in, however often it rotates. */
  refreshSeconds: 30 * 86_400,
  authorizationCodeSeconds: 60,
  /** Time to come back from the identity provider. */
  signInSeconds: 10 * 60,
} as const;

/** A session's last-seen time is written at most this often. */
const touchEverySeconds = 60;

export const cliClientId = 'svc-cli';

export interface SignInDeps {
  signIns: SignInStore;
  users: UserStore;
  clock: Clock;
  mode: AuthMode;
  /** oidc mode's provider, asked for the person's claims as they are now. */
  provider?: ProviderDeps | null;
}

/** How long a provider sign-in is kept: the longest a credential made from it can live. */
export const providerSignInSeconds = Lifetime.sessionAbsoluteSeconds + Lifetime.refreshSeconds;

/**
 * A credential's grants now: the person's record (same person, same credentials epoch, enabled)
 * plus, in oidc mode, what the provider's claims give now (re-read as `recheck` says). Null once
 * the credential may no longer act: the person changed, or the provider refused.
 */
async function grantsNow(
  deps: SignInDeps,
  credential: PersonRef & { claim_grants: readonly Grant[]; provider_sign_in: string | null },
  recheck: 'now' | 'due' = 'due',
): Promise<Grant[] | null> {
  const user = await personNow(deps.users, credential);
  if (!user) return null;
  if (deps.mode !== AuthMode.Oidc) return mergeGrants(credential.claim_grants, user.grants);
  // A credential of the provider with no sign-in to re-read its claims from was made before they were kept.
  if (!credential.provider_sign_in || !deps.provider) return null;
  const claimed = await providerGrants(
    { signIns: deps.signIns, clock: deps.clock, provider: deps.provider },
    { provider_sign_in: credential.provider_sign_in, user_id: user.id },
    recheck,
  );
  return claimed ? mergeGrants(claimed, user.grants) : null;
}

function personIdentity(
  username: string,
  grants: readonly Grant[],
  credential: Identity['credential'],
): Identity {
  const subject = userSubject(username);
  return { subject, kind: IdentityKind.User, grants, author: subject, credential };
}

/** A browser session for `user`; `providerSignIn`: the identity-provider sign-in it came from (oidc). */
export async function startSession(
  deps: SignInDeps,
  user: User,
  providerSignIn: string | null,
): Promise<{ secret: string; session: Session }> {
  const now = deps.clock.now();
  const secret = newSecret(SecretPrefix.Session);
  const session: Session = {
    id: newSortableId('ses', now),
    ...personRef(user),
    claim_grants: [],
    provider_sign_in: providerSignIn,
    created_at: now.toISOString(),
    idle_expires_at: addSeconds(now, Lifetime.sessionIdleSeconds).toISOString(),
    expires_at: addSeconds(now, Lifetime.sessionAbsoluteSeconds).toISOString(),
    revoked_at: null,
  };
  await deps.signIns.putSession(hashSecret(secret), session);
  return { secret, session };
}

/** The session a cookie holds, if live: not revoked, not idle too long, not too old. */
export async function liveSession(deps: SignInDeps, secret: string): Promise<Session | null> {
  const now = deps.clock.now();
  const hash = hashSecret(secret);
  const session = await deps.signIns.getSession(hash, now);
  if (!session || session.revoked_at) return null;
  const at = now.getTime();
  if (Date.parse(session.expires_at) <= at || Date.parse(session.idle_expires_at) <= at) return null;
  const idleFrom = Date.parse(session.idle_expires_at) - Lifetime.sessionIdleSeconds * 1000;
  if (at - idleFrom >= touchEverySeconds * 1000) {
    const idle = addSeconds(now, Lifetime.sessionIdleSeconds);
    const capped = Math.min(idle.getTime(), Date.parse(session.expires_at));
    await deps.signIns.touchSession(hash, new Date(capped).toISOString());
  }
  return session;
}

export async function sessionIdentity(deps: SignInDeps, secret: string): Promise<Identity | null> {
  const session = await liveSession(deps, secret);
  if (!session) return null;
  const grants = await grantsNow(deps, session);
  if (!grants) return null;
  return personIdentity(session.username, grants, { kind: CredentialKind.Session, id: session.id });
}

export async function endSession(deps: SignInDeps, secret: string): Promise<void> {
  await deps.signIns.revokeSession(hashSecret(secret), deps.clock.now());
}

/**
 * `redirect_uri` of the CLI: only a loopback IP literal with an explicit port (RFC 8252 §7.3), plain
 * http, no credentials, query or fragment. `localhost` is refused: it can resolve elsewhere.
 */
export function isLoopbackRedirect(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (
    url.protocol === 'http:' &&
    (url.hostname === '127.0.0.1' || url.hostname === '[::1]') &&
    url.port !== '' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === ''
  );
}

export async function issueCode(
  deps: SignInDeps,
  session: Session,
  request: { client_id: string; redirect_uri: string; code_challenge: string },
): Promise<string> {
  const code = newSecret(SecretPrefix.AuthorizationCode);
  await deps.signIns.putCode(hashSecret(code), {
    username: session.username,
    user_id: session.user_id,
    credentials_epoch: session.credentials_epoch,
    claim_grants: session.claim_grants,
    provider_sign_in: session.provider_sign_in,
    ...request,
    expires_at: addSeconds(deps.clock.now(), Lifetime.authorizationCodeSeconds).toISOString(),
  });
  return code;
}

/** Why a token request fails, in OAuth's words (RFC 6749 §5.2). */
export class OAuthError extends Error {
  override name = 'OAuthError';
  readonly error: 'invalid_request' | 'invalid_grant' | 'invalid_client' | 'unsupported_grant_type';
  constructor(error: OAuthError['error'], description: string) {
    super(description);
    this.error = error;
  }
}

async function tokensFor(deps: SignInDeps, grant: SignInGrant): Promise<TokenAnswer> {
  const now = deps.clock.now();
  const access = newSecret(SecretPrefix.AccessToken);
  const refresh = newSecret(SecretPrefix.RefreshToken);
  const accessExpires = addSeconds(now, Lifetime.accessTokenSeconds);
  await deps.signIns.putRefresh(hashSecret(refresh), { grant_id: grant.id, expires_at: grant.expires_at });
  await deps.signIns.putAccess(hashSecret(access), {
    grant_id: grant.id,
    username: grant.username,
    expires_at: accessExpires.toISOString(),
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Lifetime.accessTokenSeconds,
    refresh_token: refresh,
    refresh_token_expires_in: Math.max(0, Math.floor((Date.parse(grant.expires_at) - now.getTime()) / 1000)),
    subject: userSubject(grant.username),
  };
}

/** `grant_type=authorization_code`: a single-use code, its redirect URI and the PKCE verifier. */
export async function exchangeCode(
  deps: SignInDeps,
  request: { code: string; redirect_uri: string; client_id: string; code_verifier: string },
): Promise<TokenAnswer> {
  const now = deps.clock.now();
  const code = await deps.signIns.takeCode(hashSecret(request.code), now);
  if (!code || Date.parse(code.expires_at) <= now.getTime()) {
    throw new OAuthError('invalid_grant', 'the authorization code is unknown, used or expired');
  }
  if (code.client_id !== request.client_id || code.redirect_uri !== request.redirect_uri) {
    throw new OAuthError('invalid_grant', 'client_id or redirect_uri differ from the authorization request');
  }
  if (!pkceMatches(request.code_verifier, code.code_challenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
  if (!(await grantsNow(deps, code))) throw new OAuthError('invalid_grant', 'the user may no longer sign in');
  const grant: SignInGrant = {
    id: newSortableId('sig', now),
    username: code.username,
    user_id: code.user_id,
    credentials_epoch: code.credentials_epoch,
    claim_grants: code.claim_grants,
    provider_sign_in: code.provider_sign_in,
    client_id: code.client_id,
    created_at: now.toISOString(),
    expires_at: addSeconds(now, Lifetime.refreshSeconds).toISOString(),
    revoked_at: null,
  };
  await deps.signIns.putGrant(grant);
  return tokensFor(deps, grant);
}

/**
 * `grant_type=refresh_token`: rotates. A refresh token used a second time means it leaked: the
 * whole grant is revoked, so the thief's copy and the owner's both stop working.
 */
export async function refresh(
  deps: SignInDeps,
  request: { refresh_token: string; client_id: string },
): Promise<TokenAnswer> {
  const now = deps.clock.now();
  const use = await deps.signIns.useRefresh(hashSecret(request.refresh_token), now);
  if (!use) throw new OAuthError('invalid_grant', 'the refresh token is unknown or expired');
  if (use.outcome === 'reused') {
    await deps.signIns.revokeGrant(use.grant_id, now);
    throw new OAuthError('invalid_grant', 'the refresh token was already used; the sign-in is revoked');
  }
  const grant = await liveGrant(deps, use.grant_id);
  if (!grant || grant.client_id !== request.client_id) {
    throw new OAuthError('invalid_grant', 'the sign-in was revoked or has expired');
  }
  // A refresh asks the identity provider again: a person it no longer has, or no longer in a group, is so at once.
  if (!(await grantsNow(deps, grant, 'now'))) {
    await deps.signIns.revokeGrant(grant.id, now);
    throw new OAuthError('invalid_grant', 'the user may no longer sign in');
  }
  return tokensFor(deps, grant);
}

async function liveGrant(deps: SignInDeps, id: string): Promise<SignInGrant | null> {
  const grant = await deps.signIns.getGrant(id);
  if (!grant || grant.revoked_at || Date.parse(grant.expires_at) <= deps.clock.now().getTime()) return null;
  return grant;
}

/**
 * Whether a session or access token that no longer gives an identity was ended (signed out, ended
 * by an Admin, or its person's credentials moved on) rather than unknown or expired: asked only
 * after the identity came back null, so a credential still on record and unexpired was ended. The
 * API's 401 says so in its challenge to whoever holds the secret, who can sign in again.
 */
export async function signInWasEnded(deps: SignInDeps, secret: string): Promise<boolean> {
  const now = deps.clock.now();
  const at = now.getTime();
  if (secret.startsWith(SecretPrefix.AccessToken)) {
    const access = await deps.signIns.getAccess(hashSecret(secret), now);
    return access !== null && Date.parse(access.expires_at) > at;
  }
  if (!secret.startsWith(SecretPrefix.Session)) return false;
  const session = await deps.signIns.getSession(hashSecret(secret), now);
  if (!session) return false;
  return (
    session.revoked_at !== null ||
    (Date.parse(session.expires_at) > at && Date.parse(session.idle_expires_at) > at)
  );
}

/** The identity a sign-in access token carries, while it and its grant are live. */
export async function accessTokenIdentity(deps: SignInDeps, token: string): Promise<Identity | null> {
  const now = deps.clock.now();
  const access = await deps.signIns.getAccess(hashSecret(token), now);
  if (!access || Date.parse(access.expires_at) <= now.getTime()) return null;
  const grant = await liveGrant(deps, access.grant_id);
  const grants = grant ? await grantsNow(deps, grant) : null;
  if (!grants) return null;
  return personIdentity(access.username, grants, {
    kind: CredentialKind.AccessToken,
    id: access.grant_id,
  });
}

/** RFC 7009: revoking a refresh or access token revokes its whole sign-in; unknown tokens are no error. */
export async function revokeToken(deps: SignInDeps, token: string): Promise<void> {
  const now = deps.clock.now();
  const hash = hashSecret(token);
  if (token.startsWith(SecretPrefix.RefreshToken)) {
    const use = await deps.signIns.useRefresh(hash, now);
    if (use) await deps.signIns.revokeGrant(use.grant_id, now);
    return;
  }
  if (token.startsWith(SecretPrefix.AccessToken)) {
    const access = await deps.signIns.getAccess(hash, now);
    if (access) await deps.signIns.revokeGrant(access.grant_id, now);
  }
}

/**
 * The grants an identity provider's claims map to: each configured group (or role) value found in
 * the claim gives its grants.
 */
export function grantsFromClaims(
  claims: Record<string, unknown>,
  mapping: {
    claim: string;
    values: Readonly<Record<string, readonly Grant[]>>;
    default_grants: readonly Grant[];
  },
): Grant[] {
  const raw = claims[mapping.claim];
  const values = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const granted = values.flatMap((value) =>
    typeof value === 'string' && Object.hasOwn(mapping.values, value) ? (mapping.values[value] ?? []) : [],
  );
  return mergeGrants(mapping.default_grants, granted);
}
