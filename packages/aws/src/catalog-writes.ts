/** The catalog store's writes: a new version made current all or nothing, and namespace claims. */
import { BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Catalog, Page } from '@svc/core';
import type { Item } from './entities/entity.ts';
import {
  CatalogBaseline,
  CatalogComponent,
  CatalogVersion,
  NamespaceClaim,
  Project,
} from './entities/index.ts';
import { conditionHeld, failedConditions, getItem, queryPage, type Table } from './table.ts';

type Store = Catalog.CatalogStore;

/**
 * Writes every new version's items, then moves the projects' pointers in one transaction; when
 * another apply won, the versions written are deleted again.
 */
export async function commit(table: Table, changes: Parameters<Store['commit']>[0]): Promise<boolean> {
  for (const { next } of changes) {
    await batchWrite(table, [
      { PutRequest: { Item: CatalogVersion.toItem(next) } },
      ...Object.entries(next.components).map(([name, entry]) => ({
        PutRequest: { Item: CatalogComponent.toItem(next, name, entry) },
      })),
      ...Object.entries(next.baselines).map(([name, entry]) => ({
        PutRequest: { Item: CatalogBaseline.toItem(next, name, entry) },
      })),
    ]);
  }
  try {
    await table.documents.send(
      new TransactWriteCommand({
        TransactItems: changes.map(({ next, previous_version_id }) => ({
          Put: {
            TableName: table.name,
            Item: Project.toItem(next),
            ...(previous_version_id === null
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  ConditionExpression: 'version_id = :previous',
                  ExpressionAttributeValues: { ':previous': previous_version_id },
                }),
          },
        })),
      }),
    );
    return true;
  } catch (error) {
    if (!failedConditions(error)?.some(Boolean)) throw error;
    await Promise.all(changes.map(({ next }) => deleteVersionItems(table, next).catch(() => {})));
    return false;
  }
}

async function deleteVersionItems(table: Table, version: Catalog.ProjectVersion): Promise<void> {
  const { project, version_id } = version;
  const keys = [
    CatalogVersion.key(project, version_id),
    ...Object.keys(version.components).map((name) => CatalogComponent.key(project, version_id, name)),
    ...Object.keys(version.baselines).map((name) => CatalogBaseline.key(project, version_id, name)),
  ];
  await batchWrite(
    table,
    keys.map((Key) => ({ DeleteRequest: { Key } })),
  );
}

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/** BatchWriteItem in chunks of 25, retrying what DynamoDB leaves unprocessed. */
async function batchWrite(table: Table, requests: WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequest[] = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 2000)));
      if (attempt > 8) throw new Error('BatchWriteItem kept leaving items unprocessed');
      const result = await table.documents.send(
        new BatchWriteCommand({ RequestItems: { [table.name]: pending } }),
      );
      pending = (result.UnprocessedItems?.[table.name] ?? []) as WriteRequest[];
    }
  }
}

export async function claimNamespaces(
  table: Table,
  claims: readonly Catalog.NamespaceClaim[],
): Promise<Catalog.NamespaceClaim[]> {
  const held = await Promise.all(claims.map((wanted) => claim(table, wanted)));
  return held.filter((c): c is Catalog.NamespaceClaim => c !== null && c.project !== claims[0]?.project);
}

/** A free claim is taken; one the project already holds stays; another project's is answered. */
async function claim(table: Table, wanted: Catalog.NamespaceClaim): Promise<Catalog.NamespaceClaim | null> {
  const taken = await conditionHeld(() =>
    table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: NamespaceClaim.toItem(wanted),
        ConditionExpression: 'attribute_not_exists(pk) OR #project = :project',
        ExpressionAttributeNames: { '#project': 'project' },
        ExpressionAttributeValues: { ':project': wanted.project },
      }),
    ),
  );
  if (taken) return null;
  return getItem(table, NamespaceClaim.key(wanted), NamespaceClaim.fromItem);
}

export async function heldNamespaces(table: Table, project: string): Promise<Catalog.NamespaceClaim[]> {
  let after: string | null = null;
  const held: Catalog.NamespaceClaim[] = [];
  do {
    const page: Page<Catalog.NamespaceClaim> = await queryPage(
      table,
      NamespaceClaim.ofProject.query({ project }),
      { limit: 100, after },
      NamespaceClaim.fromItem,
    );
    held.push(...page.items);
    after = page.next_cursor;
  } while (after);
  return held;
}

export async function releaseNamespaces(
  table: Table,
  project: string,
  release: readonly Catalog.NamespaceKey[],
): Promise<void> {
  await Promise.all(
    release.map((key) =>
      conditionHeld(() =>
        table.documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: NamespaceClaim.key(key),
            ConditionExpression: '#project = :project',
            ExpressionAttributeNames: { '#project': 'project' },
            ExpressionAttributeValues: { ':project': project },
          }),
        ),
      ),
    ),
  );
}
