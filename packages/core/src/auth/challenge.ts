/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3). Every refused credential gets the same
 * `unauthenticated` body, so clients written against the conventions see one answer; why this
 * credential was refused goes in the challenge instead, which only its presenter receives, who
 * learns nothing new from it: they hold the secret.
 */

/** Why a request carries no identity. */
export const Refusal = {
  /** No credential, or one of a scheme the API does not take: the bare challenge (RFC 6750 §3.1). */
  Missing: 'missing',
  /** Unknown, malformed or expired: nothing more to say. */
  Invalid: 'invalid',
  /** A machine token an Admin revoked. */
  Revoked: 'revoked',
  /** A browser session or CLI sign-in that was signed out, ended by an Admin, or by a password change, a disable or a deletion. */
  SignInEnded: 'sign_in_ended',
} as const;
export type Refusal = (typeof Refusal)[keyof typeof Refusal];

/**
 * What each refusal of a presented credential says. RFC 6750 §3 allows only %x20-21 / %x23-5B /
 * %x5D-7E in `error_description` (printable ASCII but `"` and `\`): no escaping, no other characters.
 */
export const refusalDescriptions: Readonly<Record<Exclude<Refusal, 'missing'>, string>> = {
  invalid: 'The credential sent is unknown or has expired.',
  revoked: 'This machine token was revoked; ask an Admin for a new one (svc admin tokens issue).',
  sign_in_ended:
    'This sign-in was ended (signed out, by an Admin, or by a password change, a disable or a deletion); sign in again (svc auth login).',
};

/** The challenge a 401 sends for `refusal`: `Bearer`, with `error="invalid_token"` and why once a credential was presented. */
export function bearerChallenge(refusal: Refusal): string {
  if (refusal === Refusal.Missing) return 'Bearer';
  return `Bearer error="invalid_token", error_description="${refusalDescriptions[refusal]}"`;
}
