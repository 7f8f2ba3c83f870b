import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type Draft, type DraftStore, sha256 } from '@svc/core';
import { epochSeconds, isConditionFailure, stripKeys, type Table } from './table.ts';

/** One item per project and author; the author is hashed so any subject makes a safe key. */
const key = (project: string, author: string) => ({
  pk: `DRAFT#${project}#${sha256(author).slice(0, 32)}`,
  sk: 'DRAFT',
});

async function conditional(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Writes are conditional on the revision read; a draft past its `ttl` counts as absent. */
export function dynamoDraftStore(table: Table): DraftStore {
  const { documents } = table;
  return {
    async get(project, author, now) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: key(project, author), ConsistentRead: true }),
      );
      if (!item || (typeof item.ttl === 'number' && item.ttl <= epochSeconds(now))) return null;
      return stripKeys<Draft>(item);
    },

    put(draft, expected, now) {
      return conditional(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...key(draft.project, draft.author),
              item_type: 'draft',
              ...draft,
              ttl: epochSeconds(draft.expires_at),
            },
            ConditionExpression:
              expected === 0
                ? 'attribute_not_exists(pk) OR #ttl <= :now'
                : 'revision = :expected AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':now': epochSeconds(now),
              ...(expected === 0 ? {} : { ':expected': expected }),
            },
          }),
        ),
      );
    },

    delete(project, author, revision, now) {
      return conditional(() =>
        documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: key(project, author),
            ConditionExpression: 'revision = :revision AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':revision': revision, ':now': epochSeconds(now) },
          }),
        ),
      );
    },
  };
}
