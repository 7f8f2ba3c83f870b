/**
 * Secrets: random, recognisable by prefix (secret scanners, and the auth middleware telling a
 * machine token from a sign-in access token), stored only as SHA-256, compared in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const SecretPrefix = {
  MachineToken: 'svc_',
  AccessToken: 'svca_',
  RefreshToken: 'svcr_',
  AuthorizationCode: 'svcc_',
  Session: 'svcs_',
  /** A sign-in in flight at the identity provider (state, nonce and PKCE verifier). */
  SignIn: 'svcl_',
} as const;
export type SecretPrefix = (typeof SecretPrefix)[keyof typeof SecretPrefix];

export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** What is stored of a secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time equality of two strings (of any length: their hashes are compared). */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * The CSRF token of a session, derived from its secret so it needs no storage of its own and
 * cannot be computed without the cookie.
 */
export function csrfTokenOf(sessionSecret: string): string {
  return createHash('sha256').update(`csrf\n${sessionSecret}`).digest('base64url');
}

const verifierShape = /^[A-Za-z0-9._~-]{43,128}$/;

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge sent with the authorization request. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!verifierShape.test(verifier)) return false;
  return sameSecret(createHash('sha256').update(verifier).digest('base64url'), challenge);
}
