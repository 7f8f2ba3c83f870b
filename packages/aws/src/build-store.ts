import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Builds } from '@svc/core';
import type { Item } from './entities/entity.ts';
import { Build, SourceRef } from './entities/index.ts';
import { conditionHeld, getItem, queryPage, type Table } from './table.ts';

export function dynamoBuildStore(table: Table): Builds.BuildStore {
  const { documents } = table;
  return {
    get: (id) => getItem(table, Build.key(id), Build.fromItem, { consistent: false }),

    async put(build) {
      const created = await conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: Build.toItem(build),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      );
      return created ? 'created' : 'exists';
    },

    list(project, filter, page) {
      const conditions: string[] = [];
      const values: Item = {};
      if (filter.repository !== null) {
        conditions.push('repository = :repository');
        values[':repository'] = filter.repository;
      }
      if (filter.commit_sha !== null) {
        conditions.push('commit_sha = :commit');
        values[':commit'] = filter.commit_sha;
      }
      const query =
        filter.component === null
          ? { index: 'gsi1' as const, partition: Build.ofProject(project) }
          : { index: 'gsi2' as const, partition: Build.ofComponent(project, filter.component) };
      return queryPage(
        table,
        {
          ...query,
          newestFirst: true,
          ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values } } : {}),
        },
        page,
        Build.fromItem,
      );
    },

    async putRef(entry) {
      // Keyed by the publication: writing the same publication twice writes the same item.
      await documents.send(
        new PutCommand({
          TableName: table.name,
          Item: SourceRef.toItem(entry),
        }),
      );
    },

    async latestRef(project, component, repository, ref) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': SourceRef.partitionOf(project, component, repository, ref),
          },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const [item] = result.Items ?? [];
      return item ? SourceRef.fromItem(item) : null;
    },
  };
}
