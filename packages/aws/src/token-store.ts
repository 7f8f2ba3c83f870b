import { DeleteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import { epochSeconds, keyOf } from './entities/entity.ts';
import { Token, TokenName } from './entities/index.ts';
import { conditionHeld, failedConditions, getItem, indexedItem, queryPage, type Table } from './table.ts';

type Store = Auth.TokenStore;

export function dynamoTokenStore(table: Table): Store {
  return {
    issue: (token, secret, now) => issue(table, token, secret, now),
    find: (secret) => find(table, secret),
    list: (page) => queryPage(table, Token.listed.query(), page, Token.fromItem),
    revoke: (id, now) => revoke(table, id, now),
  };
}

async function issue(table: Table, token: Auth.MachineToken, secret: string, now: Date): Promise<boolean> {
  try {
    await table.documents.send(
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
}

async function find(table: Table, secret: string): Promise<Auth.MachineToken | null> {
  if (!secret.startsWith(Auth.SecretPrefix.MachineToken)) return null;
  return getItem(table, Token.key(secret), Token.fromItem, { consistent: false });
}

async function revoke(table: Table, id: string, now: Date): ReturnType<Store['revoke']> {
  const item = await indexedItem(table, Token.listed.at(id));
  if (!item) return null;
  const token = Token.fromItem(item);
  if (token.revoked_at) return { token, changed: false };
  const revokedAt = now.toISOString();
  await table.documents.send(
    new UpdateCommand({
      TableName: table.name,
      Key: keyOf(item),
      UpdateExpression: 'SET revoked_at = :at, #ttl = :ttl',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':at': revokedAt, ':ttl': epochSeconds(now) + Token.retainedSeconds },
    }),
  );
  // Frees the name only while it still names this token: a newer one may hold it already.
  await conditionHeld(() =>
    table.documents.send(
      new DeleteCommand({
        TableName: table.name,
        Key: TokenName.key(token.name),
        ConditionExpression: 'token_id = :id',
        ExpressionAttributeValues: { ':id': token.id },
      }),
    ),
  );
  return { token: { ...token, revoked_at: revokedAt }, changed: true };
}
