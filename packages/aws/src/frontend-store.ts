import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FrontendBinding, FrontendStore } from '@svc/core';
import { epochSeconds, isConditionFailure, stripKeys, type Table } from './table.ts';

const key = (project: string, frontend: string, revision: string) => ({
  pk: `FRONTEND#${project}#${frontend}`,
  sk: `REV#${revision}`,
});

/** Writes are conditional on the version read; a binding past its `ttl` counts as absent. */
export function dynamoFrontendStore(table: Table): FrontendStore {
  const { documents } = table;
  return {
    async get(project, frontend, revision, now) {
      const { Item: item } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: key(project, frontend, revision),
          ConsistentRead: true,
        }),
      );
      if (!item || (typeof item.ttl === 'number' && item.ttl <= epochSeconds(now))) return null;
      return stripKeys<FrontendBinding>(item);
    },

    async put(binding, expected, now) {
      try {
        await documents.send(
          new PutCommand({
            TableName: table.name,
            Item: {
              ...key(binding.project, binding.frontend, binding.revision),
              item_type: 'frontend_binding',
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
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}
