/** An entry of the installation's audit trail, kept 366 days. */
import { Auth } from '@svc/core';
import {
  epochSeconds,
  type Item,
  indexEntry,
  itemSchema,
  type Key,
  readItem,
  timeOrdered,
} from './entity.ts';

export const type = 'audit_event';

export const key = (id: string): Key => ({ pk: `AUDIT#${id}`, sk: 'AUDIT' });

/** gsi1: the whole trail; gsi2: one project's. Newest first. */
export const all = 'AUDIT';
export const ofProject = (project: string) => `AUDIT#${project}`;

export function toItem(event: Auth.AuditEvent): Item {
  const order = timeOrdered(event.at, event.id);
  return {
    ...key(event.id),
    item_type: type,
    ...indexEntry('gsi1', all, order),
    ...(event.project ? indexEntry('gsi2', ofProject(event.project), order) : {}),
    ...event,
    ttl: epochSeconds(event.at) + Auth.auditRetentionDays * 86_400,
  };
}

/** The trail's shape, as core declares it for its list. */
const AuditEvent = Auth.AuditEventList.entries.items.item;

const schema = itemSchema(type, AuditEvent.entries);

export const fromItem = (item: Item): Auth.AuditEvent => readItem(schema, item);
