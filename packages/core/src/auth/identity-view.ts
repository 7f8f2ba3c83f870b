import * as v from 'valibot';
import { Grant } from './access.ts';
import { AuthMode, CredentialKind, type Identity, IdentityKind } from './identity.ts';

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
