/** An entry of the installation's audit trail, kept 366 days. */
import { Auth } from '@svc/core';
import {
  epochSeconds,
  everyIn,
  type Item,
  indexPattern,
  itemSchema,
  type Key,
  readItem,
  timeOrdered,
} from './entity.ts';

export const type = 'audit_event';

export const key = (id: string): Key => ({ pk: `AUDIT#${id}`, sk: 'AUDIT' });

const happened = (event: Pick<Auth.AuditEvent, 'at' | 'id'>) => timeOrdered(event.at, event.id);

/** The whole trail, newest first. */
export const trail = everyIn('gsi1', 'AUDIT', { sort: happened, newestFirst: true });

/** One project's trail, newest first (an event of no project is not in it). */
export const ofProject = indexPattern('gsi2', {
  partition: ({ project }: { project: string }) => `AUDIT#${project}`,
  sort: happened,
  newestFirst: true,
});

export function toItem(event: Auth.AuditEvent): Item {
  const { project } = event;
  return {
    ...key(event.id),
    item_type: type,
    ...trail.entry(event),
    ...(project ? ofProject.entry({ ...event, project }) : {}),
    ...event,
    ttl: epochSeconds(event.at) + Auth.auditRetentionDays * 86_400,
  };
}

/** The trail's shape, as core declares it for its list. */
const AuditEvent = Auth.AuditEventList.entries.items.item;

const schema = itemSchema(type, AuditEvent.entries);

export const fromItem = (item: Item): Auth.AuditEvent => readItem(schema, item);
