import * as v from 'valibot';
import { AuthMode, Role } from './identity.ts';

/** `GET /v1/auth/identity`: who the request's credential is, and how the server authenticates. */
export const IdentityView = v.object({
  subject: v.string(),
  role: v.enum(Role),
  /** Drafts are kept per author; shared-token and anonymous modes share one. */
  author: v.string(),
  /** The server's auth mode. */
  mode: v.enum(AuthMode),
});
export type IdentityView = v.InferOutput<typeof IdentityView>;
