import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Frontends } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, epochSeconds, stripKeys, type Table } from './table.ts';

/** Writes are conditional on the version read; a binding past its `ttl` counts as absent. */
export function dynamoFrontendStore(table: Table): Frontends.FrontendStore {
  const { documents } = table;
  return {
    async get(project, frontend, revision, now) {
      const { Item: item } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: Keys.frontendBinding(project, frontend, revision),
          ConsistentRead: true,
        }),
      );
      if (!item || (typeof item.ttl === 'number' && item.ttl <= epochSeconds(now))) return null;
      return stripKeys<Frontends.FrontendBinding>(item);
    },

    put(binding, expected, now) {
      return conditionHeld(() =>
        documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...Keys.frontendBinding(binding.project, binding.frontend, binding.revision),
              item_type: Keys.ItemType.FrontendBinding,
              ...binding,
              ttl: epochSeconds(binding.expires_at),
            },
            ConditionExpression:
              expected === 0
                ? 'attribute_not_exists(pk) OR #ttl <= :now'
                : 'version = :expected AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':now': epochSeconds(now),
              ...(expected === 0 ? {} : { ':expected': expected }),
            },
          }),
        ),
      );
    },
  };
}
