import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Builds, Page, PageRequest } from '@svc/core';
import type { Item } from './entities/entity.ts';
import { Build, SourceRef } from './entities/index.ts';
import { conditionHeld, getItem, queryPage, type Table } from './table.ts';

type Store = Builds.BuildStore;

export function dynamoBuildStore(table: Table): Store {
  return {
    get: (id) => getItem(table, Build.key(id), Build.fromItem, { consistent: false }),
    put: (build) => put(table, build),
    list: (project, filter, page) => list(table, project, filter, page),
    putRef: (entry) => putRef(table, entry),
    latestRef: (project, component, repository, ref) =>
      latestRef(table, SourceRef.partitionOf(project, component, repository, ref)),
  };
}

async function put(table: Table, build: Builds.Build): Promise<'created' | 'exists'> {
  const created = await conditionHeld(() =>
    table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: Build.toItem(build),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
  return created ? 'created' : 'exists';
}

function list(
  table: Table,
  project: string,
  filter: Parameters<Store['list']>[1],
  page: PageRequest,
): Promise<Page<Builds.Build>> {
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
      ? Build.ofProject.query({ project })
      : Build.ofComponent.query({ project, component: filter.component });
  return queryPage(
    table,
    {
      ...query,
      ...(conditions.length ? { filter: { expression: conditions.join(' AND '), values } } : {}),
    },
    page,
    Build.fromItem,
  );
}

async function putRef(table: Table, entry: Builds.SourceRef): Promise<void> {
  // Keyed by the publication: writing the same publication twice writes the same item.
  await table.documents.send(
    new PutCommand({
      TableName: table.name,
      Item: SourceRef.toItem(entry),
    }),
  );
}

/** The newest publication in a ref's partition. */
async function latestRef(table: Table, partition: string): Promise<Builds.SourceRef | null> {
  const result = await table.documents.send(
    new QueryCommand({
      TableName: table.name,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': partition },
      ScanIndexForward: false,
      Limit: 1,
      ConsistentRead: true,
    }),
  );
  const [item] = result.Items ?? [];
  return item ? SourceRef.fromItem(item) : null;
}
