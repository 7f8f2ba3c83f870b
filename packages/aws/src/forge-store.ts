import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addSeconds, type Forge } from '@svc/core';
import * as Keys from './keys.ts';
import {
  conditionHeld,
  dueQuery,
  epochSeconds,
  type Item,
  queryPage,
  stripKeys,
  type Table,
} from './table.ts';

/** Deliveries outlive GitHub's three-day redelivery window, so a redelivered one is still deduplicated. */
const deliveryRetentionSeconds = 4 * 24 * 3600;

/** Policies, previews, deliveries and the forge's health, on the single table (docs/data-model.md). */
export function dynamoForgeStore(table: Table): Forge.ForgeStore {
  const { documents } = table;
  const get = async <T>(key: Keys.Key): Promise<T | null> => {
    const { Item: item } = await documents.send(
      new GetCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
    );
    return item ? stripKeys<T>(item) : null;
  };
  const put = (item: Item) => documents.send(new PutCommand({ TableName: table.name, Item: item }));
  const queryAll = async (input: { index?: 'gsi2'; partition: string; prefix?: string }): Promise<Item[]> => {
    const items: Item[] = [];
    let start: Item | undefined;
    do {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          ...(input.index ? { IndexName: input.index } : {}),
          KeyConditionExpression:
            input.prefix === undefined ? '#pk = :pk' : '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: {
            '#pk': input.index ? Keys.globalIndex(input.index).partitionKey : 'pk',
            ...(input.prefix === undefined ? {} : { '#sk': 'sk' }),
          },
          ExpressionAttributeValues: {
            ':pk': input.partition,
            ...(input.prefix === undefined ? {} : { ':prefix': input.prefix }),
          },
          ExclusiveStartKey: start,
        }),
      );
      items.push(...(result.Items ?? []));
      start = result.LastEvaluatedKey;
    } while (start);
    return items;
  };
  const versioned = (item: Item, counter: string, expected: number) =>
    conditionHeld(() =>
      documents.send(
        new PutCommand({
          TableName: table.name,
          Item: item,
          ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : `${counter} = :expected`,
          ...(expected === 0 ? {} : { ExpressionAttributeValues: { ':expected': expected } }),
        }),
      ),
    );

  return {
    getPolicy: async (project, repository) => {
      const item = await get<StoredPolicy>(Keys.previewPolicy(project, repository));
      return item ? policyOf(item) : null;
    },

    putPolicy: (policy, expected) => {
      const { ttl: preview_ttl, ...fields } = policy;
      const item = {
        ...Keys.previewPolicy(policy.project, policy.repository),
        item_type: Keys.ItemType.PreviewPolicy,
        ...fields,
        preview_ttl,
        ...Keys.listedPolicy(policy),
      };
      return expected === undefined ? put(item).then(() => true) : versioned(item, 'revision', expected);
    },

    listPolicies: async (page) => {
      const result = await queryPage<StoredPolicy>(
        table,
        { index: 'gsi1', partition: Keys.allPolicies, newestFirst: false },
        page,
      );
      return { items: result.items.map(policyOf), next_cursor: result.next_cursor };
    },

    async policiesOf(repository) {
      const items = await queryAll({ index: 'gsi2', partition: Keys.repositoryPolicies(repository) });
      return items.map((item) => policyOf(stripKeys<StoredPolicy>(item)));
    },

    getPreview: (id) => get<Forge.PreviewRecord>(Keys.preview(id)),

    async putPreview(record, expected) {
      const waiting = record.state === 'waiting_for_build' ? Keys.waitingPreview(record) : {};
      const written = await versioned(
        {
          ...Keys.preview(record.id),
          item_type: Keys.ItemType.Preview,
          ...record,
          ...Keys.listedPreview(record),
          ...waiting,
        },
        'lock_version',
        expected,
      );
      // The pointer only narrows the reconciliation's reads; the record itself is always read again.
      if (written) {
        await put({
          ...Keys.previewPointer(record.repository, record.id),
          item_type: Keys.ItemType.PreviewPointer,
          id: record.id,
          project: record.project,
          number: record.number,
          state: record.state,
        });
      }
      return written;
    },

    listPreviews: (filter, page) =>
      queryPage<Forge.PreviewRecord>(
        table,
        {
          index: 'gsi1',
          partition: Keys.allPreviews,
          newestFirst: true,
          ...(filter.project === null
            ? {}
            : {
                filter: {
                  expression: '#project = :project',
                  values: { ':project': filter.project },
                  names: { '#project': 'project' },
                },
              }),
        },
        page,
      ),

    async activePreviewsOf(repository) {
      const pointers = await queryAll({ partition: Keys.repositoryPreviews(repository) });
      const active = pointers.filter((p) => p.state !== 'stopped');
      const records = await Promise.all(
        active.map((p) => get<Forge.PreviewRecord>(Keys.preview(String(p.id)))),
      );
      return records.filter((r): r is Forge.PreviewRecord => r !== null && r.state !== 'stopped');
    },

    async waitingFor(repository, commitSha) {
      const items = await queryAll({ index: 'gsi2', partition: Keys.waitingForBuild(repository, commitSha) });
      return items.map((item) => stripKeys<Forge.PreviewRecord>(item));
    },

    putDelivery: (delivery) =>
      conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: deliveryItem(delivery),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      ),

    getDelivery: async (id) => {
      const item = await get<StoredDelivery>(Keys.delivery(id));
      return item ? deliveryOf(item) : null;
    },

    updateDelivery: (delivery) => put(deliveryItem(delivery)).then(() => undefined),

    dueDeliveries: async (now, limit) =>
      (await dueQuery<StoredDelivery>(table, Keys.DueQueue.Forge, now, limit)).map(deliveryOf),

    async listDeliveries(filter, page) {
      if (filter.repositories?.length === 0) return { items: [], next_cursor: null };
      const result = await queryPage<StoredDelivery>(
        table,
        {
          index: 'gsi1',
          partition: Keys.allDeliveries,
          newestFirst: true,
          ...(filter.repositories === null ? {} : { filter: concerning(filter.repositories) }),
        },
        page,
      );
      return { items: result.items.map(deliveryOf), next_cursor: result.next_cursor };
    },

    async unprocessed(limit) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'due',
          KeyConditionExpression: 'duepk = :queue',
          ExpressionAttributeValues: { ':queue': Keys.DueQueue.Forge },
          Limit: limit,
        }),
      );
      const received = (result.Items ?? []).map((item) => String(item.received_at)).sort();
      return { count: received.length, oldest: received[0] ?? null };
    },

    async webhookHealth() {
      const health = await get<Partial<Forge.WebhookHealth>>(Keys.forgeHealth);
      return {
        last_received_at: health?.last_received_at ?? null,
        processing_failures: health?.processing_failures ?? 0,
        last_failure_at: health?.last_failure_at ?? null,
      };
    },

    async noteReceived(at) {
      // Only ever forward: a late write of an older time leaves the newer one.
      await conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: Keys.forgeHealth,
            UpdateExpression: 'SET last_received_at = :at, item_type = :type',
            ConditionExpression: 'attribute_not_exists(last_received_at) OR last_received_at < :at',
            ExpressionAttributeValues: { ':at': at, ':type': Keys.ItemType.ForgeHealth },
          }),
        ),
      );
    },

    async noteFailure(at) {
      await documents.send(
        new UpdateCommand({
          TableName: table.name,
          Key: Keys.forgeHealth,
          UpdateExpression: 'ADD processing_failures :one SET last_failure_at = :at, item_type = :type',
          ExpressionAttributeValues: { ':one': 1, ':at': at, ':type': Keys.ItemType.ForgeHealth },
        }),
      );
    },

    putBudget: (budget) =>
      put({
        ...Keys.rateBudget(budget.installation),
        item_type: Keys.ItemType.ForgeRateBudget,
        ...budget,
      }).then(() => undefined),

    async budgets() {
      const items = await queryAll({ partition: Keys.budgetsOf.partition, prefix: Keys.budgetsOf.prefix });
      return items.map((item) => stripKeys<Forge.RateBudget>(item));
    },

    putReconciliation: (run) =>
      put({ ...Keys.reconciliation, item_type: Keys.ItemType.ForgeReconciliation, ...run }).then(
        () => undefined,
      ),

    lastReconciliation: () => get<Forge.ReconciliationRun>(Keys.reconciliation),

    getSuspension: (account) => get<Forge.InstallationSuspension>(Keys.suspension(account)),

    async suspensions() {
      const { partition, prefix } = Keys.suspensionsOf;
      const items = await queryAll({ partition, prefix });
      return items.map((item) => stripKeys<Forge.InstallationSuspension>(item));
    },

    putSuspension: (suspension) =>
      put({
        ...Keys.suspension(suspension.account),
        item_type: Keys.ItemType.ForgeSuspension,
        ...suspension,
      }).then(() => undefined),

    deleteSuspension: async (account) => {
      await documents.send(new DeleteCommand({ TableName: table.name, Key: Keys.suspension(account) }));
    },
  };
}

/** `ttl` is the table's expiry attribute: a policy's TTL is stored as `preview_ttl`. */
type StoredPolicy = Omit<Forge.PreviewPolicy, 'ttl'> & { preview_ttl: string };
const policyOf = ({ preview_ttl, ...policy }: StoredPolicy): Forge.PreviewPolicy => ({
  ...policy,
  ttl: preview_ttl,
});

/** Every repository a delivery concerns, in lower case: what a list filtered by repository matches. */
type StoredDelivery = Partial<Pick<Forge.Delivery, 'installation' | 'account' | 'outcome'>> &
  Omit<Forge.Delivery, 'installation' | 'account' | 'outcome'> & { repository_keys?: string[] };

/** Deliveries stored before installations and outcomes were recorded read as having none. */
const deliveryOf = ({ repository_keys: _, ...stored }: StoredDelivery): Forge.Delivery => ({
  ...stored,
  installation: stored.installation ?? null,
  account: stored.account ?? null,
  outcome: stored.outcome ?? [],
});

const repositoryKeys = (delivery: Forge.Delivery) => [
  ...new Set(
    [...(delivery.repository ? [delivery.repository] : []), ...delivery.repositories].map((r) =>
      r.toLowerCase(),
    ),
  ),
];

/** A filter keeping deliveries that concern one of `repositories` (lower case; at most 100, as DynamoDB allows). */
function concerning(repositories: readonly string[]) {
  const names = repositories.slice(0, 100).map((_, i) => `:repo${i}`);
  return {
    expression: names.map((name) => `contains(#keys, ${name})`).join(' OR '),
    names: { '#keys': 'repository_keys' },
    values: Object.fromEntries(names.map((name, i) => [name, repositories[i]])),
  };
}

function deliveryItem(delivery: Forge.Delivery): Item {
  const expires = addSeconds(new Date(delivery.received_at), deliveryRetentionSeconds);
  return {
    ...Keys.delivery(delivery.id),
    item_type: Keys.ItemType.ForgeDelivery,
    ...delivery,
    repository_keys: repositoryKeys(delivery),
    ...Keys.listedDelivery(delivery),
    ...(delivery.due_at ? Keys.dueEntry(Keys.DueQueue.Forge, delivery.due_at, delivery.id) : {}),
    ttl: epochSeconds(expires),
  };
}
