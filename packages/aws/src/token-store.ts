import { DeleteCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import { epochSeconds, globalIndex, keyOf } from './entities/entity.ts';
import { Token, TokenName } from './entities/index.ts';
import { conditionHeld, failedConditions, getItem, queryPage, type Table } from './table.ts';

export function dynamoTokenStore(table: Table): Auth.TokenStore {
  const { documents } = table;
  return {
    async issue(token, secret, now) {
      try {
        await documents.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table.name,
                  Item: TokenName.toItem(token),
                  // A name is free again once its token expired (TTL deletes late) or was revoked.
                  ConditionExpression: 'attribute_not_exists(pk) OR held_until <= :now',
                  ExpressionAttributeValues: { ':now': now.toISOString() },
                },
              },
              {
                Put: {
                  TableName: table.name,
                  Item: Token.toItem(token, secret),
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (failedConditions(error)?.[0]) return false;
        throw error;
      }
    },

    async verify(secret, now) {
      if (!secret.startsWith(Auth.SecretPrefix.MachineToken)) return null;
      const token = await getItem(table, Token.key(secret), Token.fromItem, { consistent: false });
      if (!token || token.revoked_at) return null;
      if (token.expires_at && Date.parse(token.expires_at) <= now.getTime()) return null;
      return token;
    },

    list: (page) =>
      queryPage(table, { index: 'gsi1', partition: Token.all, newestFirst: true }, page, Token.fromItem),

    async revoke(id, now) {
      const { partitionKey, sortKey } = globalIndex('gsi1');
      const found = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'gsi1',
          KeyConditionExpression: '#pk = :pk AND #sk = :id',
          ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
          ExpressionAttributeValues: { ':pk': Token.all, ':id': id },
        }),
      );
      const item = found.Items?.[0];
      if (!item) return null;
      const token = Token.fromItem(item);
      if (token.revoked_at) return { token, changed: false };
      const revokedAt = now.toISOString();
      await documents.send(
        new UpdateCommand({
          TableName: table.name,
          Key: keyOf(item),
          UpdateExpression: 'SET revoked_at = :at, #ttl = :ttl',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':at': revokedAt, ':ttl': epochSeconds(now) + Token.retainedSeconds },
        }),
      );
      await conditionHeld(() =>
        documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: TokenName.key(token.name),
            ConditionExpression: 'token_id = :id',
            ExpressionAttributeValues: { ':id': token.id },
          }),
        ),
      );
      return { token: { ...token, revoked_at: revokedAt }, changed: true };
    },
  };
}
