import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import {
  conditionHeld,
  epochSeconds,
  failedConditions,
  type Item,
  queryPage,
  stripKeys,
  type Table,
} from './table.ts';

/** Where a token that never expires holds its name until revoked. */
const never = '9999-12-31T23:59:59.999Z';

/** Kept this long after expiry or revocation, so the list still shows what happened. */
const retainedSeconds = 30 * 86_400;

/**
 * Tokens issued before grants existed carry a `role` (admin|member) and no id: they read as
 * admin or developer on every project, under their old subject.
 */
function tokenFrom(item: Item): Auth.MachineToken {
  const stored = stripKeys<Partial<Auth.MachineToken> & { role?: Auth.Role; subject: string }>(item);
  if (stored.grants) return stored as Auth.MachineToken;
  return {
    id: `legacy-${String(item.pk).slice('TOKEN#'.length, 'TOKEN#'.length + 12)}`,
    name: stored.subject,
    subject: stored.subject,
    grants: Auth.grantsOfRole(stored.role ?? Auth.Role.Member),
    created_at: stored.created_at ?? '',
    created_by: 'operator',
    expires_at: stored.expires_at ?? null,
    revoked_at: stored.revoked_at ?? null,
  };
}

export function dynamoTokenStore(table: Table): Auth.TokenStore {
  const { documents } = table;
  return {
    async issue(token, secret, now) {
      const ends = token.expires_at ?? token.revoked_at;
      const tokenItem = {
        ...Keys.token(secret),
        item_type: Keys.ItemType.Token,
        ...Keys.listedToken(token.id),
        ...token,
        ...(ends ? { ttl: epochSeconds(ends) + retainedSeconds } : {}),
      };
      const held = token.expires_at ?? never;
      const nameItem = {
        ...Keys.tokenName(token.name),
        item_type: Keys.ItemType.TokenName,
        token_id: token.id,
        held_until: held,
        ...(token.expires_at ? { ttl: epochSeconds(token.expires_at) } : {}),
      };
      try {
        await documents.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: table.name,
                  Item: nameItem,
                  // A name is free again once its token expired (TTL deletes late) or was revoked.
                  ConditionExpression: 'attribute_not_exists(pk) OR held_until <= :now',
                  ExpressionAttributeValues: { ':now': now.toISOString() },
                },
              },
              {
                Put: {
                  TableName: table.name,
                  Item: tokenItem,
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
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.token(secret) }),
      );
      if (!item) return null;
      const token = tokenFrom(item);
      if (token.revoked_at) return null;
      if (token.expires_at && Date.parse(token.expires_at) <= now.getTime()) return null;
      return token;
    },

    list: (page) =>
      queryPage<Auth.MachineToken>(
        table,
        { index: 'gsi1', partition: Keys.allTokens, newestFirst: true },
        page,
      ),

    async revoke(id, now) {
      const { partitionKey, sortKey } = Keys.globalIndex('gsi1');
      const found = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'gsi1',
          KeyConditionExpression: '#pk = :pk AND #sk = :id',
          ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
          ExpressionAttributeValues: { ':pk': Keys.allTokens, ':id': id },
        }),
      );
      const item = found.Items?.[0];
      if (!item) return null;
      const token = tokenFrom(item);
      if (token.revoked_at) return { token, changed: false };
      const revokedAt = now.toISOString();
      await documents.send(
        new UpdateCommand({
          TableName: table.name,
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: 'SET revoked_at = :at, #ttl = :ttl',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':at': revokedAt, ':ttl': epochSeconds(now) + retainedSeconds },
        }),
      );
      await conditionHeld(() =>
        documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: Keys.tokenName(token.name),
            ConditionExpression: 'token_id = :id',
            ExpressionAttributeValues: { ':id': token.id },
          }),
        ),
      );
      return { token: { ...token, revoked_at: revokedAt }, changed: true };
    },
  };
}
