/**
 * The installation's audit trail: who published a build, recorded a frontend check, applied the
 * catalog, issued or revoked a token, changed a user. Composition lifecycles have their own
 * events (`GET /v1/compositions/{id}/events`); these are the actions outside them.
 */
import * as v from 'valibot';
import type { Clock } from '../clock.ts';
import { newSortableId } from '../names.ts';
import type { Page, PageRequest } from '../paging.ts';
import { pageSchema } from '../paging.ts';
import type { Identity } from './identity.ts';

export const AuditAction = {
  BuildPublished: 'build.published',
  FrontendCheckRecorded: 'frontend.check_recorded',
  TestResultRecorded: 'composition.test_recorded',
  PreviewPolicySaved: 'preview_policy.saved',
  FrontendPublished: 'frontend.published',
  CatalogApplied: 'catalog.applied',
  TokenIssued: 'token.issued',
  TokenRevoked: 'token.revoked',
  UserSaved: 'user.saved',
  UserDeleted: 'user.deleted',
  UserSignInsEnded: 'user.sign_ins_ended',
} as const;
export type AuditAction = (typeof AuditAction)[keyof typeof AuditAction];

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

export interface AuditStore {
  append(event: AuditEvent): Promise<void>;
  /** Newest first; `project` filters. */
  list(filter: { project: string | null }, page: PageRequest): Promise<Page<AuditEvent>>;
}

/** Kept one year. */
export const auditRetentionDays = 366;

export async function recordAudit(
  deps: { audit: AuditStore; clock: Clock },
  caller: Identity,
  entry: { action: AuditAction; project: string | null; target: string; data: Record<string, unknown> },
): Promise<AuditEvent> {
  const now = deps.clock.now();
  const event: AuditEvent = {
    id: newSortableId('au', now),
    at: now.toISOString(),
    actor: { subject: caller.subject, kind: caller.kind, credential: caller.credential.kind },
    ...entry,
  };
  await deps.audit.append(event);
  return event;
}
