import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Forge } from '@svc/core';
import { DueQueue, globalIndex, type Item } from './entities/entity.ts';
import {
  ForgeDelivery,
  ForgeHealth,
  ForgeRateBudget,
  ForgeReconciliation,
  ForgeSuspension,
  Preview,
  PreviewPointer,
  PreviewPolicy,
} from './entities/index.ts';
import { conditionHeld, dueQuery, getItem, queryPage, type Table } from './table.ts';

/** Policies, previews, deliveries and the forge's health, on the single table (docs/data-model.md). */
export function dynamoForgeStore(table: Table): Forge.ForgeStore {
  const { documents } = table;
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
            '#pk': input.index ? globalIndex(input.index).partitionKey : 'pk',
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
    getPolicy: (project, repository) =>
      getItem(table, PreviewPolicy.key(project, repository), PreviewPolicy.fromItem),

    putPolicy: (policy, expected) => {
      const item = PreviewPolicy.toItem(policy);
      return expected === undefined ? put(item).then(() => true) : versioned(item, 'revision', expected);
    },

    listPolicies: (page) =>
      queryPage(
        table,
        { index: 'gsi1', partition: PreviewPolicy.all, newestFirst: false },
        page,
        PreviewPolicy.fromItem,
      ),

    async policiesOf(repository) {
      const items = await queryAll({ index: 'gsi2', partition: PreviewPolicy.ofRepository(repository) });
      return items.map(PreviewPolicy.fromItem);
    },

    getPreview: (id) => getItem(table, Preview.key(id), Preview.fromItem),

    async putPreview(record, expected) {
      const written = await versioned(Preview.toItem(record), 'lock_version', expected);
      // The pointer only narrows the reconciliation's reads; the record itself is always read again.
      if (written) await put(PreviewPointer.toItem(record));
      return written;
    },

    listPreviews: (filter, page) =>
      queryPage(
        table,
        {
          index: 'gsi1',
          partition: Preview.all,
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
        Preview.fromItem,
      ),

    async activePreviewsOf(repository) {
      const pointers = (await queryAll({ partition: PreviewPointer.ofRepository(repository) })).map(
        PreviewPointer.fromItem,
      );
      const active = pointers.filter((p) => p.state !== 'stopped');
      const records = await Promise.all(
        active.map((p) => getItem(table, Preview.key(p.id), Preview.fromItem)),
      );
      return records.filter((r): r is Forge.PreviewRecord => r !== null && r.state !== 'stopped');
    },

    async waitingFor(repository, commitSha) {
      const items = await queryAll({ index: 'gsi2', partition: Preview.waitingFor(repository, commitSha) });
      return items.map(Preview.fromItem);
    },

    putDelivery: (delivery) =>
      conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: ForgeDelivery.toItem(delivery),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        ),
      ),

    getDelivery: (id) => getItem(table, ForgeDelivery.key(id), ForgeDelivery.fromItem),

    updateDelivery: (delivery) => put(ForgeDelivery.toItem(delivery)).then(() => undefined),

    dueDeliveries: (now, limit) => dueQuery(table, DueQueue.Forge, now, limit, ForgeDelivery.fromItem),

    async listDeliveries(filter, page) {
      if (filter.repositories?.length === 0) return { items: [], next_cursor: null };
      return queryPage(
        table,
        {
          index: 'gsi1',
          partition: ForgeDelivery.all,
          newestFirst: true,
          ...(filter.repositories === null ? {} : { filter: concerning(filter.repositories) }),
        },
        page,
        ForgeDelivery.fromItem,
      );
    },

    async unprocessed(limit) {
      const result = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'due',
          KeyConditionExpression: 'duepk = :queue',
          ExpressionAttributeValues: { ':queue': DueQueue.Forge },
          Limit: limit,
        }),
      );
      const received = (result.Items ?? []).map((item) => ForgeDelivery.fromItem(item).received_at).sort();
      return { count: received.length, oldest: received[0] ?? null };
    },

    webhookHealth: async () =>
      (await getItem(table, ForgeHealth.key, ForgeHealth.fromItem)) ?? ForgeHealth.none,

    async noteReceived(at) {
      // Only ever forward: a late write of an older time leaves the newer one.
      await conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: ForgeHealth.key,
            UpdateExpression: 'SET last_received_at = :at, item_type = :type',
            ConditionExpression: 'attribute_not_exists(last_received_at) OR last_received_at < :at',
            ExpressionAttributeValues: { ':at': at, ':type': ForgeHealth.type },
          }),
        ),
      );
    },

    async noteFailure(at) {
      await documents.send(
        new UpdateCommand({
          TableName: table.name,
          Key: ForgeHealth.key,
          UpdateExpression: 'ADD processing_failures :one SET last_failure_at = :at, item_type = :type',
          ExpressionAttributeValues: { ':one': 1, ':at': at, ':type': ForgeHealth.type },
        }),
      );
    },

    putBudget: (budget) => put(ForgeRateBudget.toItem(budget)).then(() => undefined),

    budgets: async () => (await queryAll(ForgeRateBudget.all)).map(ForgeRateBudget.fromItem),

    putReconciliation: (run) => put(ForgeReconciliation.toItem(run)).then(() => undefined),

    lastReconciliation: () => getItem(table, ForgeReconciliation.key, ForgeReconciliation.fromItem),

    getSuspension: (account) => getItem(table, ForgeSuspension.key(account), ForgeSuspension.fromItem),

    suspensions: async () => (await queryAll(ForgeSuspension.all)).map(ForgeSuspension.fromItem),

    putSuspension: (suspension) => put(ForgeSuspension.toItem(suspension)).then(() => undefined),

    deleteSuspension: async (account) => {
      await documents.send(new DeleteCommand({ TableName: table.name, Key: ForgeSuspension.key(account) }));
    },
  };
}

/** A filter keeping deliveries that concern one of `repositories` (lower case; at most 100, as DynamoDB allows). */
function concerning(repositories: readonly string[]) {
  const names = repositories.slice(0, 100).map((_, i) => `:repo${i}`);
  return {
    expression: names.map((name) => `contains(#keys, ${name})`).join(' OR '),
    names: { '#keys': ForgeDelivery.repositoryKeys },
    values: Object.fromEntries(names.map((name, i) => [name, repositories[i]])),
  };
}
