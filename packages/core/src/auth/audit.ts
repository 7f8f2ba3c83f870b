import type { Clock } from '../clock.ts';
import { newSortableId } from '../names.ts';
import type { Identity } from './identity.ts';
import type { AuditAction } from './model.ts';
import type { AuditStore } from './ports.ts';
import type { AuditEvent } from './schema.ts';

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
