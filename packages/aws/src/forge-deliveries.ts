/** The forge store's webhook deliveries. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Forge, Page, PageRequest } from '@svc/core';
import { ForgeDelivery } from './entities/index.ts';
import { conditionHeld, dueQuery, queryPage, type Table } from './table.ts';

type Store = Forge.ForgeStore;

export function putDelivery(table: Table, delivery: Forge.Delivery): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: ForgeDelivery.toItem(delivery),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

export async function listDeliveries(
  table: Table,
  filter: Parameters<Store['listDeliveries']>[0],
  page: PageRequest,
): Promise<Page<Forge.Delivery>> {
  if (filter.repositories?.length === 0) return { items: [], next_cursor: null };
  return queryPage(
    table,
    {
      ...ForgeDelivery.listed.query(),
      ...(filter.repositories === null ? {} : { filter: concerning(filter.repositories) }),
    },
    page,
    ForgeDelivery.fromItem,
  );
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

export async function unprocessed(table: Table, limit: number): ReturnType<Store['unprocessed']> {
  const items = await dueQuery(table, ForgeDelivery.unfinished.all(), limit, ForgeDelivery.fromItem);
  const received = items.map((delivery) => delivery.received_at).sort();
  return { count: received.length, oldest: received[0] ?? null };
}
