import * as v from 'valibot';
import { pageSchema } from '../paging.ts';
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
