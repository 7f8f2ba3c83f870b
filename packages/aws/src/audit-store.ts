import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import { epochSeconds, queryPage, type Table } from './table.ts';

export function dynamoAuditStore(table: Table): Auth.AuditStore {
  return {
    async append(event) {
      await table.documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...Keys.auditEvent(event.id),
            item_type: Keys.ItemType.AuditEvent,
            ...Keys.listedAuditEvent(event),
            ...event,
            ttl: epochSeconds(event.at) + Auth.auditRetentionDays * 86_400,
          },
        }),
      );
    },

    list(filter, page) {
      const query =
        filter.project === null
          ? { index: 'gsi1' as const, partition: Keys.allAuditEvents }
          : { index: 'gsi2' as const, partition: Keys.projectAuditEvents(filter.project) };
      return queryPage<Auth.AuditEvent>(table, { ...query, newestFirst: true }, page);
    },
  };
}
