/**
 * The Bearer challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3). The service
 * answers every refused credential with the same `unauthenticated` problem; the challenge is where it
 * says why this one was refused (revoked, sign-in ended, unknown or expired).
 */

/** What the Bearer challenge said; a field the server did not send is null. */
export interface Challenge {
  /** `invalid_token` when a credential was sent and refused; null when none was sent. */
  error: string | null;
  /** Why, in words for a person. */
  error_description: string | null;
}

const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const bearerScheme = /(?:^|,)[ \t]*Bearer(?=[ \t,]|$)/i;
/** One `name=value` (a token or a quoted-string) and the comma after it. */
const authParam = new RegExp(
  `[ \\t]*(${token})[ \\t]*=[ \\t]*(?:"((?:[^"\\\\]|\\\\.)*)"|(${token}))[ \\t]*(?:,|$)`,
  'y',
);

/** The Bearer challenge among those of `header`; null when it has none. */
export function bearerChallenge(header: string | undefined): Challenge | null {
  const scheme = header === undefined ? null : bearerScheme.exec(header);
  if (!header || !scheme) return null;
  const params = new Map<string, string>();
  authParam.lastIndex = scheme.index + scheme[0].length;
  // Parameters run until the next challenge's scheme, which is no `name=value`.
  for (let match = authParam.exec(header); match; match = authParam.exec(header)) {
    const [, name = '', quoted, bare] = match;
    params.set(name.toLowerCase(), quoted === undefined ? (bare ?? '') : quoted.replace(/\\(.)/g, '$1'));
  }
  return { error: params.get('error') ?? null, error_description: params.get('error_description') ?? null };
}
