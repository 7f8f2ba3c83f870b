import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Builds } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, type Item, queryPage, stripKeys, type Table } from './table.ts';

export function dynamoBuildStore(table: Table): Builds.BuildStore {
  const { documents } = table;
  return {
    async get(id) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.build(id) }),
      );
      return item ? stripKeys<Builds.Build>(item) : null;
    },

    async put(build) {
      const created = await conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...Keys.build(build.id),
              item_type: Keys.ItemType.Build,
              ...build,
              ...Keys.listedBuild(build),
            },
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
          ? { index: 'gsi1' as const, partition: Keys.projectBuilds(project) }
          : { index: 'gsi2' as const, partition: Keys.componentBuilds(project, filter.component) };
      return queryPage<Builds.Build>(
        table,
        {
          ...query,
          newestFirst: true,
          ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values } } : {}),
        },
        page,
      );
    },

    async putRef(entry) {
      // Keyed by the publication: writing the same publication twice writes the same item.
      await documents.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...Keys.sourceRef(entry), item_type: Keys.ItemType.SourceRef, ...entry },
        }),
      );
    },

    async latestRef(project, component, repository, ref) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': Keys.sourceRefPartition(project, component, repository, ref),
          },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const [item] = result.Items ?? [];
      return item ? stripKeys<Builds.SourceRef>(item) : null;
    },
  };
}
