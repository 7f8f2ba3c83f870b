import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Drafts } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, epochSeconds, stripKeys, type Table } from './table.ts';

/** Writes are conditional on the revision read; a draft past its `ttl` counts as absent. */
export function dynamoDraftStore(table: Table): Drafts.DraftStore {
  const { documents } = table;
  return {
    async get(project, author, now) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.draft(project, author), ConsistentRead: true }),
      );
      if (!item || (typeof item.ttl === 'number' && item.ttl <= epochSeconds(now))) return null;
      return stripKeys<Drafts.Draft>(item);
    },

    put(draft, expected, now) {
      return conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...Keys.draft(draft.project, draft.author),
              item_type: Keys.ItemType.Draft,
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
      return conditionHeld(() =>
        documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: Keys.draft(project, author),
            ConditionExpression: 'revision = :revision AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':revision': revision, ':now': epochSeconds(now) },
          }),
        ),
      );
    },
  };
}
