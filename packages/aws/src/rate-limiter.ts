import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import { epochSeconds } from './entities/entity.ts';
import { RateWindow } from './entities/index.ts';
import { conditionHeld, type Table } from './table.ts';

/**
 * Fixed-window counters in the table: one conditional atomic increment per hit, refused once the
 * window holds `limit` hits, so every API instance counts into the same window. Windows expire by TTL.
 */
export function dynamoRateLimiter(table: Table): Auth.RateLimiter {
  return {
    hit(key, limit, windowSeconds, now) {
      const start = Auth.windowStart(now, windowSeconds);
      return conditionHeld(() =>
        table.documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: RateWindow.key(key, start),
            UpdateExpression: 'SET item_type = :type, #ttl = :ttl ADD hits :one',
            ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: {
              ':type': RateWindow.type,
              ':ttl': epochSeconds(start) + windowSeconds + 60,
              ':one': 1,
              ':limit': limit,
            },
          }),
        ),
      );
    },

    async count(key, windowSeconds, now) {
      const { Item: item } = await table.documents.send(
        new GetCommand({
          TableName: table.name,
          Key: RateWindow.key(key, Auth.windowStart(now, windowSeconds)),
          ConsistentRead: true,
          ProjectionExpression: 'hits',
        }),
      );
      return item ? RateWindow.hitsOf(item) : 0;
    },
  };
}
