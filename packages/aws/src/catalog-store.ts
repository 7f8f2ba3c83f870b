import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Catalog, Page } from '@svc/core';
import * as Keys from './keys.ts';
import {
  conditionHeld,
  failedConditions,
  type Item,
  oneOf,
  queryPage,
  stripKeys,
  type Table,
} from './table.ts';

interface Pointer extends Catalog.ProjectView {
  version_id: string;
  hash: string;
}

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

  async function loadVersion(pointer: Pointer): Promise<Catalog.ProjectVersion> {
    const components: Record<string, Catalog.Revisioned<Catalog.ComponentProfile>> = {};
    const baselines: Record<string, Catalog.Revisioned<Catalog.Baseline>> = {};
    let start: Item | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: table.name,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': Keys.catalogVersion(pointer.name, pointer.version_id).partition,
          },
          ExclusiveStartKey: start,
          ConsistentRead: true,
        }),
      );
      for (const item of page.Items ?? []) {
        const entry = { spec: item.spec, revision: item.revision, hash: item.hash };
        if (item.item_type === Keys.ItemType.CatalogComponent) {
          components[item.name] = entry as Catalog.Revisioned<Catalog.ComponentProfile>;
        }
        if (item.item_type === Keys.ItemType.CatalogBaseline)
          baselines[item.name] = entry as Catalog.Revisioned<Catalog.Baseline>;
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
    const items = Keys.catalogVersion(version.project, version.version_id);
    const keys = [
      items.meta,
      ...Object.keys(version.components).map(items.component),
      ...Object.keys(version.baselines).map(items.baseline),
    ];
    await batchWrite(
      table,
      keys.map((Key) => ({ DeleteRequest: { Key } })),
    );
  }

  /** A free claim is taken; one the project already holds stays; another project's is answered. */
  async function claim(wanted: Catalog.NamespaceClaim): Promise<Catalog.NamespaceClaim | null> {
    const key = Keys.namespaceClaim(wanted.cluster, wanted.namespace);
    const taken = await conditionHeld(() =>
      documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...key,
            item_type: Keys.ItemType.NamespaceClaim,
            ...Keys.listedClaim(wanted.project, wanted.cluster, wanted.namespace),
            ...wanted,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR #project = :project',
          ExpressionAttributeNames: { '#project': 'project' },
          ExpressionAttributeValues: { ':project': wanted.project },
        }),
      ),
    );
    if (taken) return null;
    const { Item: item } = await documents.send(
      new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
    );
    return item ? stripKeys<Catalog.NamespaceClaim>(item) : null;
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
        const page: Page<Catalog.NamespaceClaim> = await queryPage<Catalog.NamespaceClaim>(
          table,
          { index: 'gsi1', partition: Keys.claimsOf(project), newestFirst: false },
          { limit: 100, after },
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
                  Key: Keys.namespaceClaim(c.cluster, c.namespace),
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
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.projectPointer(project), ConsistentRead: true }),
      );
      if (!item) return null;
      const pointer = stripKeys<Pointer>(item);
      return cache.get(pointer.version_id) ?? remember(await loadVersion(pointer));
    },

    async readVersion(project, versionId) {
      const cached = cache.get(versionId);
      if (cached) return cached;
      const { Item: meta } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: Keys.catalogVersion(project, versionId).meta,
          ConsistentRead: true,
        }),
      );
      return meta ? remember(await loadVersion(stripKeys<Pointer>(meta))) : null;
    },

    async listProjects(page, only) {
      const filter = oneOf('name', only);
      const projects = await queryPage<Pointer>(
        table,
        { index: 'gsi1', partition: Keys.allProjects, newestFirst: false, ...(filter ? { filter } : {}) },
        page,
      );
      return {
        items: projects.items.map(({ version_id: _id, hash: _hash, ...view }) => view),
        next_cursor: projects.next_cursor,
      };
    },

    async commit(changes) {
      for (const { next } of changes) {
        const items = Keys.catalogVersion(next.project, next.version_id);
        await batchWrite(table, [
          {
            PutRequest: {
              Item: { ...items.meta, item_type: Keys.ItemType.CatalogVersion, ...pointerFields(next) },
            },
          },
          ...Object.entries(next.components).map(([name, entry]) => ({
            PutRequest: {
              Item: { ...items.component(name), item_type: Keys.ItemType.CatalogComponent, name, ...entry },
            },
          })),
          ...Object.entries(next.baselines).map(([name, entry]) => ({
            PutRequest: {
              Item: { ...items.baseline(name), item_type: Keys.ItemType.CatalogBaseline, name, ...entry },
            },
          })),
        ]);
      }
      try {
        await documents.send(
          new TransactWriteCommand({
            TransactItems: changes.map(({ next, previous_version_id }) => ({
              Put: {
                TableName: table.name,
                Item: {
                  ...Keys.projectPointer(next.project),
                  item_type: Keys.ItemType.Project,
                  ...Keys.listedProject(next.project),
                  ...pointerFields(next),
                } satisfies Item,
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

function pointerFields(version: Catalog.ProjectVersion): Pointer {
  return {
    name: version.project,
    version: version.version,
    version_id: version.version_id,
    default_baseline: version.default_baseline,
    hash: version.hash,
    applied_at: version.applied_at,
    components: Object.keys(version.components).sort(),
    baselines: Object.keys(version.baselines).sort(),
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
