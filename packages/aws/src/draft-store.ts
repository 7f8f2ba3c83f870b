import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Drafts } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, epochSeconds, getLive, putVersioned, type Table } from './table.ts';

/** Writes are conditional on the revision read; a draft past its `ttl` counts as absent. */
export function dynamoDraftStore(table: Table): Drafts.DraftStore {
  return {
    get: (project, author, now) => getLive<Drafts.Draft>(table, Keys.draft(project, author), now),

    put: (draft, expected, now) =>
      putVersioned(
        table,
        { ...Keys.draft(draft.project, draft.author), item_type: Keys.ItemType.Draft, ...draft },
        draft.expires_at,
        { counter: 'revision', expected },
        now,
      ),

    delete(project, author, revision, now) {
      return conditionHeld(() =>
        table.documents.send(
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
