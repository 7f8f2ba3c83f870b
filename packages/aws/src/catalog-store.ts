import {
  BatchWriteCommand,
  DeleteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Catalog, Page } from '@svc/core';
import type { Item } from './entities/entity.ts';
import {
  CatalogBaseline,
  CatalogComponent,
  CatalogVersion,
  NamespaceClaim,
  Project,
} from './entities/index.ts';
import { conditionHeld, failedConditions, getItem, oneOf, queryPage, type Table } from './table.ts';

/**
 * Versions are immutable, so they are cached by version id: a read costs one consistent GetItem of
 * the project's pointer unless the version is new to this process.
 */
export function dynamoCatalogStore(table: Table, options: { cacheSize?: number } = {}): Catalog.CatalogStore {
  const { documents } = table;
  const cache = new Map<string, Catalog.ProjectVersion>();
  const cacheSize = options.cacheSize ?? 64;

  function remember(version: Catalog.ProjectVersion): Catalog.ProjectVersion {
    cache.set(version.version_id, version);
    if (cache.size > cacheSize) cache.delete(cache.keys().next().value as string);
    return version;
  }

  async function loadVersion(pointer: Project.Pointer): Promise<Catalog.ProjectVersion> {
    const components: Record<string, Catalog.Revisioned<Catalog.ComponentProfile>> = {};
    const baselines: Record<string, Catalog.Revisioned<Catalog.Baseline>> = {};
    let start: Item | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': CatalogVersion.partitionOf(pointer.name, pointer.version_id),
          },
          ExclusiveStartKey: start,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.item_type === CatalogComponent.type) {
          const { name, ...entry } = CatalogComponent.fromItem(item);
          components[name] = entry;
        }
        if (item.item_type === CatalogBaseline.type) {
          const { name, ...entry } = CatalogBaseline.fromItem(item);
          baselines[name] = entry;
        }
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return {
      project: pointer.name,
      version: pointer.version,
      version_id: pointer.version_id,
      default_baseline: pointer.default_baseline,
      hash: pointer.hash,
      applied_at: pointer.applied_at,
      components,
      baselines,
    };
  }

  async function deleteVersionItems(version: Catalog.ProjectVersion): Promise<void> {
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

  /** A free claim is taken; one the project already holds stays; another project's is answered. */
  async function claim(wanted: Catalog.NamespaceClaim): Promise<Catalog.NamespaceClaim | null> {
    const taken = await conditionHeld(() =>
      documents.send(
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

  return {
    async claimNamespaces(claims) {
      const held = await Promise.all(claims.map(claim));
      return held.filter((c): c is Catalog.NamespaceClaim => c !== null && c.project !== claims[0]?.project);
    },

    async releaseNamespaces(project, keep) {
      let after: string | null = null;
      const held: Catalog.NamespaceClaim[] = [];
      do {
        const page: Page<Catalog.NamespaceClaim> = await queryPage(
          table,
          { index: 'gsi1', partition: NamespaceClaim.ofProject(project), newestFirst: false },
          { limit: 100, after },
          NamespaceClaim.fromItem,
        );
        held.push(...page.items);
        after = page.next_cursor;
      } while (after);
      const kept = (c: Catalog.NamespaceKey) =>
        keep.some((k) => k.cluster === c.cluster && k.namespace === c.namespace);
      await Promise.all(
        held
          .filter((c) => !kept(c))
          .map((c) =>
            conditionHeld(() =>
              documents.send(
                new DeleteCommand({
                  TableName: table.name,
                  Key: NamespaceClaim.key(c),
                  ConditionExpression: '#project = :project',
                  ExpressionAttributeNames: { '#project': 'project' },
                  ExpressionAttributeValues: { ':project': project },
                }),
              ),
            ),
          ),
      );
    },

    async readProject(project) {
      const pointer = await getItem(table, Project.key(project), Project.fromItem);
      if (!pointer) return null;
      return cache.get(pointer.version_id) ?? remember(await loadVersion(pointer));
    },

    async readVersion(project, versionId) {
      const cached = cache.get(versionId);
      if (cached) return cached;
      const meta = await getItem(table, CatalogVersion.key(project, versionId), CatalogVersion.fromItem);
      return meta ? remember(await loadVersion(meta)) : null;
    },

    async listProjects(page, only) {
      const filter = oneOf('name', only);
      const projects = await queryPage(
        table,
        { index: 'gsi1', partition: Project.all, newestFirst: false, ...(filter ? { filter } : {}) },
        page,
        Project.fromItem,
      );
      return {
        items: projects.items.map(({ version_id: _id, hash: _hash, ...view }) => view),
        next_cursor: projects.next_cursor,
      };
    },

    async commit(changes) {
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
        await documents.send(
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
        await Promise.all(changes.map(({ next }) => deleteVersionItems(next).catch(() => {})));
        return false;
      }
    },
  };
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
