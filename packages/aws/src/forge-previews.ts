/** The forge store's preview policies and pull-request previews. */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Forge, Page, PageRequest } from '@svc/core';
import type { Item } from './entities/entity.ts';
import { Preview, PreviewPointer, PreviewPolicy } from './entities/index.ts';
import { conditionHeld, getItem, putItem, queryAll, queryPage, type Table } from './table.ts';

/** Writes `item` if its `counter` is still `expected` (0: if it does not exist); false when that failed. */
function versioned(table: Table, item: Item, counter: string, expected: number): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      new PutCommand({
        TableName: table.name,
        Item: item,
        ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : `${counter} = :expected`,
        ...(expected === 0 ? {} : { ExpressionAttributeValues: { ':expected': expected } }),
      }),
    ),
  );
}

export function putPolicy(
  table: Table,
  policy: Forge.PreviewPolicy,
  expected: number | undefined,
): Promise<boolean> {
  const item = PreviewPolicy.toItem(policy);
  return expected === undefined
    ? putItem(table, item).then(() => true)
    : versioned(table, item, 'revision', expected);
}

export async function policiesOf(table: Table, repository: string): Promise<Forge.PreviewPolicy[]> {
  const items = await queryAll(table, { index: 'gsi2', partition: PreviewPolicy.ofRepository(repository) });
  return items.map(PreviewPolicy.fromItem);
}

export async function putPreview(
  table: Table,
  record: Forge.PreviewRecord,
  expected: number,
): Promise<boolean> {
  const written = await versioned(table, Preview.toItem(record), 'lock_version', expected);
  // The pointer only narrows the reconciliation's reads; the record itself is always read again.
  if (written) await putItem(table, PreviewPointer.toItem(record));
  return written;
}

export function listPreviews(
  table: Table,
  filter: { project: string | null },
  page: PageRequest,
): Promise<Page<Forge.PreviewRecord>> {
  return queryPage(
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
  );
}

export async function activePreviewsOf(table: Table, repository: string): Promise<Forge.PreviewRecord[]> {
  const pointers = (await queryAll(table, { partition: PreviewPointer.ofRepository(repository) })).map(
    PreviewPointer.fromItem,
  );
  const active = pointers.filter((p) => p.state !== 'stopped');
  const records = await Promise.all(active.map((p) => getItem(table, Preview.key(p.id), Preview.fromItem)));
  return records.filter((r): r is Forge.PreviewRecord => r !== null && r.state !== 'stopped');
}

export async function waitingFor(
  table: Table,
  repository: string,
  commitSha: string,
): Promise<Forge.PreviewRecord[]> {
  const items = await queryAll(table, {
    index: 'gsi2',
    partition: Preview.waitingFor(repository, commitSha),
  });
  return items.map(Preview.fromItem);
}
