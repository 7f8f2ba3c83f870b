import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Build, BuildStore, SourceRef } from '@svc/core';
import { pageOf } from './composition-store.ts';
import { type Item, isConditionFailure, startKeyFrom, stripKeys, type Table } from './table.ts';

const key = (id: string) => ({ pk: `BUILD#${id}`, sk: 'BUILD' });
/** One partition per ref of a component's repository; sort keys order its publications. */
const refPk = (project: string, component: string, repository: string, ref: string) =>
  `SOURCE#${project}#${component}#${repository}#${ref}`;

export function dynamoBuildStore(table: Table): BuildStore {
  const { documents } = table;
  return {
    async get(id) {
      const { Item: item } = await documents.send(new GetCommand({ TableName: table.name, Key: key(id) }));
      return item ? stripKeys<Build>(item) : null;
    },

    async put(build) {
      const order = `${build.published_at}#${build.id}`;
      try {
        await documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...key(build.id),
              item_type: 'build',
              ...build,
              gsi1pk: `BUILDS#${build.project}`,
              gsi1sk: order,
              gsi2pk: `BUILDS#${build.project}#${build.component}`,
              gsi2sk: order,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return 'created';
      } catch (error) {
        if (isConditionFailure(error)) return 'exists';
        throw error;
      }
    },

    async list(project, filter, page) {
      const byComponent = filter.component !== null;
      const index = byComponent ? 'gsi2' : 'gsi1';
      const keys = ['pk', 'sk', `${index}pk`, `${index}sk`];
      const conditions: string[] = [];
      const values: Item = {
        ':pk': byComponent ? `BUILDS#${project}#${filter.component}` : `BUILDS#${project}`,
      };
      if (filter.repository !== null) {
        conditions.push('repository = :repository');
        values[':repository'] = filter.repository;
      }
      if (filter.commit_sha !== null) {
        conditions.push('commit_sha = :commit');
        values[':commit'] = filter.commit_sha;
      }
      // A filter can leave a DynamoDB page short, so keep reading until the page is full or the index ends.
      const items: Item[] = [];
      let start = startKeyFrom(page.after, keys);
      do {
        const result = await documents.send(
          new QueryCommand({
            TableName: table.name,
            IndexName: index,
            KeyConditionExpression: `${index}pk = :pk`,
            ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
            ExpressionAttributeValues: values,
            ScanIndexForward: false,
            Limit: page.limit + 1,
            ExclusiveStartKey: start,
          }),
        );
        items.push(...(result.Items ?? []));
        start = result.LastEvaluatedKey;
      } while (start && items.length <= page.limit);
      return pageOf<Build>(items.slice(0, page.limit + 1), page, keys);
    },

    async putRef(entry) {
      // Keyed by the publication: writing the same publication twice writes the same item.
      await documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            pk: refPk(entry.project, entry.component, entry.repository, entry.ref),
            sk: `${entry.published_at}#${entry.build_id}`,
            item_type: 'source_ref',
            ...entry,
          },
        }),
      );
    },

    async latestRef(project, component, repository, ref) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': refPk(project, component, repository, ref) },
          ScanIndexForward: false,
          Limit: 1,
          ConsistentRead: true,
        }),
      );
      const [item] = result.Items ?? [];
      return item ? stripKeys<SourceRef>(item) : null;
    },
  };
}
