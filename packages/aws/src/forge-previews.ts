/** The forge store's preview policies and pull-request previews. */
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Forge, Page, PageRequest } from '@svc/core';
import type { Item } from './entities/entity.ts';
import { Preview, PreviewPointer, PreviewPolicy, RepositoryClaim } from './entities/index.ts';
import {
  conditionHeld,
  failedConditions,
  getItem,
  putItem,
  queryAll,
  queryPage,
  type Table,
} from './table.ts';

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

/**
 * Saves the policy and holds its repository for its project in one transaction: the claim is taken
 * if free or found the project's, the policy written if its revision is still `expected` (0: it must
 * not exist). Another project's claim answers that project.
 */
export async function putPolicy(
  table: Table,
  policy: Forge.PreviewPolicy,
  expected: number,
): Promise<Forge.PolicyWrite> {
  const claim = {
    Put: {
      TableName: table.name,
      Item: RepositoryClaim.toItem({
        repository: policy.repository,
        project: policy.project,
        claimed_at: policy.updated_at,
      }),
      ConditionExpression: 'attribute_not_exists(pk) OR #project = :project',
      ExpressionAttributeNames: { '#project': 'project' },
      ExpressionAttributeValues: { ':project': policy.project },
    },
  };
  const write = {
    Put: {
      TableName: table.name,
      Item: PreviewPolicy.toItem(policy),
      ConditionExpression: expected === 0 ? 'attribute_not_exists(pk)' : 'revision = :expected',
      ...(expected === 0 ? {} : { ExpressionAttributeValues: { ':expected': expected } }),
    },
  };
  try {
    await table.documents.send(new TransactWriteCommand({ TransactItems: [claim, write] }));
    return { saved: true };
  } catch (error) {
    const failed = failedConditions(error);
    if (!failed?.some(Boolean)) throw error;
    if (!failed[0]) return { saved: false, owner: null };
    return { saved: false, owner: (await repositoryOwner(table, policy.repository)) ?? null };
  }
}

export async function repositoryOwner(table: Table, repository: string): Promise<string | null> {
  return (await getItem(table, RepositoryClaim.key(repository), RepositoryClaim.fromItem))?.project ?? null;
}

/** Deletes the project's policy and, when the project holds the repository, its claim; false when there was no policy. */
export async function deletePolicy(table: Table, project: string, repository: string): Promise<boolean> {
  const owned = (await repositoryOwner(table, repository)) === project;
  const items = [
    {
      Delete: {
        TableName: table.name,
        Key: PreviewPolicy.key(project, repository),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    ...(owned
      ? [
          {
            Delete: {
              TableName: table.name,
              Key: RepositoryClaim.key(repository),
              ConditionExpression: '#project = :project',
              ExpressionAttributeNames: { '#project': 'project' },
              ExpressionAttributeValues: { ':project': project },
            },
          },
        ]
      : []),
  ];
  try {
    await table.documents.send(new TransactWriteCommand({ TransactItems: items }));
    return true;
  } catch (error) {
    if (failedConditions(error)?.[0]) return false;
    throw error;
  }
}

export async function policiesOf(table: Table, repository: string): Promise<Forge.PreviewPolicy[]> {
  const items = await queryAll(table, PreviewPolicy.ofRepository.query({ repository }));
  return items.map(PreviewPolicy.fromItem);
}

/** Writes `item` if its `lock_version` is still `expected` (0: if it does not exist). */
export const lockedPut = (table: Table, item: Item, expected: number) =>
  versioned(table, item, 'lock_version', expected);

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
      ...Preview.listed.query(),
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
  const items = await queryAll(table, Preview.waitingFor.query({ repository, head_sha: commitSha }));
  return items.map(Preview.fromItem);
}
