import * as v from 'valibot';
import { pageSchema } from '../paging.ts';
import { Grant } from './access.ts';
import { AuthMode, CredentialKind, type Identity, IdentityKind } from './identity.ts';
import { AuditAction } from './model.ts';

const AuditEventView = v.object({
  id: v.string(),
  at: v.string(),
  action: v.enum(AuditAction),
  actor: v.object({ subject: v.string(), kind: v.string(), credential: v.string() }),
  /** The project the action touched; null for installation-wide actions (tokens, users). */
  project: v.nullable(v.string()),
  /** What was acted on: a build id, a composition id, a token id, a user name… */
  target: v.string(),
  data: v.record(v.string(), v.unknown()),
});

export type AuditEvent = v.InferOutput<typeof AuditEventView>;

export const AuditEventList = pageSchema(AuditEventView);

/** `GET /v1/auth/identity`: who the request's credential is, and how the server authenticates. */
export const IdentityView = v.object({
  subject: v.string(),
  kind: v.enum(IdentityKind),
  grants: v.array(Grant),
  /** Drafts are kept per author; shared-token and anonymous modes share one. */
  author: v.string(),
  /** What proved the identity: a machine token, a sign-in access token, a session, the shared token or nothing. */
  credential: v.object({ kind: v.enum(CredentialKind), id: v.nullable(v.string()) }),
  /** The server's auth mode. */
  mode: v.enum(AuthMode),
});
export type IdentityView = v.InferOutput<typeof IdentityView>;

export function identityView(identity: Identity, mode: AuthMode): IdentityView {
  const { subject, kind, grants, author, credential } = identity;
  return { subject, kind, grants: [...grants], author, credential: { ...credential }, mode };
}

/**
 * The shapes of the sign-in endpoints outside `/v1` (`/auth/config`, the OAuth token and revocation
 * endpoints, the forms the sign-in pages post), for the OpenAPI document and the handlers' types.
 */

const nullableUrl = v.nullable(v.pipe(v.string(), v.url()));

/** `GET /auth/config`: what a client needs to sign in here, and the browser's session if any. */
export const AuthConfigView = v.object({
  mode: v.enum(AuthMode),
  sign_in: v.boolean(),
  machine_tokens: v.boolean(),
  warning: v.nullable(v.string()),
  issuer: v.pipe(v.string(), v.url()),
  authorization_endpoint: nullableUrl,
  token_endpoint: nullableUrl,
  revocation_endpoint: nullableUrl,
  client_id: v.string(),
  code_challenge_methods_supported: v.array(v.string()),
  lifetimes: v.object({
    access_token_seconds: v.number(),
    refresh_seconds: v.number(),
    session_idle_seconds: v.number(),
    session_absolute_seconds: v.number(),
  }),
  session: v.nullable(v.object({ subject: v.string(), expires_at: v.pipe(v.string(), v.isoTimestamp()) })),
  /** The `X-CSRF-Token` a cookie-authenticated change sends; null without a session. */
  csrf_token: v.nullable(v.string()),
});
export type AuthConfigView = v.InferOutput<typeof AuthConfigView>;

/** A successful `POST /auth/token` (RFC 6749 §5.1). */
export const TokenAnswer = v.object({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.number(),
  refresh_token: v.string(),
  refresh_token_expires_in: v.number(),
  /** The person signed in, for the CLI's status. */
  subject: v.string(),
});
export type TokenAnswer = v.InferOutput<typeof TokenAnswer>;

/** A refused token or revocation request, in OAuth's words (RFC 6749 §5.2). */
export const OAuthErrorView = v.object({ error: v.string(), error_description: v.string() });

export const TokenRequestForm = v.object({
  grant_type: v.picklist(['authorization_code', 'refresh_token']),
  client_id: v.string(),
  code: v.optional(v.string()),
  redirect_uri: v.optional(v.string()),
  code_verifier: v.optional(v.string()),
  refresh_token: v.optional(v.string()),
});

export const RevokeForm = v.object({ client_id: v.string(), token: v.string() });

export const PasswordSignInForm = v.object({
  username: v.string(),
  password: v.string(),
  /** A path on this service to go to once signed in. */
  return_to: v.optional(v.string()),
});

export const LogoutForm = v.object({ csrf_token: v.optional(v.string()), return_to: v.optional(v.string()) });

/** The consent page's answer: the authorization request, unchanged, and the person's decision. */
export const AuthorizeDecisionForm = v.object({
  response_type: v.literal('code'),
  client_id: v.string(),
  redirect_uri: v.string(),
  code_challenge: v.string(),
  code_challenge_method: v.literal('S256'),
  state: v.string(),
  csrf_token: v.string(),
  decision: v.picklist(['allow', 'deny']),
});
