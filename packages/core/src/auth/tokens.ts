import * as v from 'valibot';
import type { Identity, Role } from './identity.ts';

export interface TokenStore {
  /** Creates a machine token; the plain token is returned once and stored only as its SHA-256. */
  issue(input: { subject: string; role: Role; now: Date; expires_at: string | null }): Promise<string>;
  verify(token: string, now: Date): Promise<Identity | null>;
}

export const IssueTokenBody = v.strictObject({
  subject: v.pipe(
    v.string(),
    v.regex(/^[A-Za-z0-9._@:-]{1,128}$/, 'subject must be 1–128 characters of A-Z a-z 0-9 . _ @ : -'),
  ),
  role: v.optional(v.picklist(['admin', 'member']), 'member'),
  /** Lifetime in days; absent = no expiry. */
  expires_in_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650))),
});

export const IssuedToken = v.object({
  token: v.string(),
  subject: v.string(),
  role: v.picklist(['admin', 'member']),
  expires_at: v.nullable(v.string()),
});
