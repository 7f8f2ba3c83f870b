import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import { AuditEvent } from './entities/index.ts';
import { queryPage, type Table } from './table.ts';

export function dynamoAuditStore(table: Table): Auth.AuditStore {
  return {
    async append(event) {
      await table.documents.send(new PutCommand({ TableName: table.name, Item: AuditEvent.toItem(event) }));
    },

    list(filter, page) {
      const query =
        filter.project === null
          ? AuditEvent.trail.query()
          : AuditEvent.ofProject.query({ project: filter.project });
      return queryPage(table, query, page, AuditEvent.fromItem);
    },
  };
}
