import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Drafts } from '@svc/core';
import { epochSeconds } from './entities/entity.ts';
import { Draft } from './entities/index.ts';
import { conditionHeld, getLive, putVersioned, type Table } from './table.ts';

/** Writes are conditional on the revision read; a draft past its `ttl` counts as absent. */
export function dynamoDraftStore(table: Table): Drafts.DraftStore {
  return {
    get: (project, author, now) => getLive(table, Draft.key(project, author), now, Draft.fromItem),

    put: (draft, expected, now) =>
      putVersioned(table, Draft.toItem(draft), { counter: 'revision', expected }, now),

    delete(project, author, revision, now) {
      return conditionHeld(() =>
        table.documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: Draft.key(project, author),
            ConditionExpression: 'revision = :revision AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':revision': revision, ':now': epochSeconds(now) },
          }),
        ),
      );
    },
  };
}
