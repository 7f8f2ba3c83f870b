/** Sessions, authorization codes, sign-in grants and their tokens, each keyed by the SHA-256 of its secret. */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import {
  conditionHeld,
  epochSeconds,
  getLive,
  type Item,
  isConditionFailure,
  queryPage,
  stripKeys,
  type Table,
} from './table.ts';

export function dynamoSignInStore(table: Table): Auth.SignInStore {
  const { documents } = table;

  const put = async (key: Item, type: Keys.ItemType, record: object, expiresAt: string) => {
    await documents.send(
      new PutCommand({
        TableName: table.name,
        Item: { ...key, item_type: type, ...record, ttl: epochSeconds(expiresAt) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  };

  /** Deletes and returns a live single-use item; null when absent, expired or already taken. */
  const take = async <T>(key: Keys.Key, now: Date): Promise<T | null> => {
    try {
      const { Attributes: item } = await documents.send(
        new DeleteCommand({
          TableName: table.name,
          Key: key,
          ConditionExpression: 'attribute_exists(pk) AND #ttl > :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':now': epochSeconds(now) },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return item ? stripKeys<T>(item) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  };

  const markRevoked = (key: Keys.Key, now: Date) =>
    conditionHeld(() =>
      documents.send(
        new UpdateCommand({
          TableName: table.name,
          Key: key,
          // Stored records carry revoked_at: null, so the first revocation is the one still null.
          UpdateExpression: 'SET revoked_at = :at',
          ConditionExpression:
            'attribute_exists(pk) AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
          ExpressionAttributeValues: { ':at': now.toISOString(), ':null': null },
        }),
      ),
    );

  return {
    putSession: (hash, session) =>
      put(
        { ...Keys.session(hash), ...Keys.listedSignIn(session.user_id, session.id) },
        Keys.ItemType.Session,
        session,
        session.expires_at,
      ),
    getSession: (hash, now) => getLive<Auth.Session>(table, Keys.session(hash), now),
    async touchSession(hash, idleExpiresAt) {
      await conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: Keys.session(hash),
            UpdateExpression: 'SET idle_expires_at = :idle',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':idle': idleExpiresAt },
          }),
        ),
      );
    },
    async revokeSession(hash, now) {
      await markRevoked(Keys.session(hash), now);
    },

    putCode: (hash, code) =>
      put(Keys.authorizationCode(hash), Keys.ItemType.AuthorizationCode, code, code.expires_at),
    takeCode: (hash, now) => take<Auth.AuthorizationCode>(Keys.authorizationCode(hash), now),

    putGrant: (grant) =>
      put(
        { ...Keys.signInGrant(grant.id), ...Keys.listedSignIn(grant.user_id, grant.id) },
        Keys.ItemType.SignInGrant,
        grant,
        grant.expires_at,
      ),
    async getGrant(id) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.signInGrant(id), ConsistentRead: true }),
      );
      return item ? stripKeys<Auth.SignInGrant>(item) : null;
    },
    async revokeGrant(id, now) {
      await markRevoked(Keys.signInGrant(id), now);
    },

    putRefresh: (hash, entry) =>
      put(Keys.refreshToken(hash), Keys.ItemType.RefreshToken, entry, entry.expires_at),
    async useRefresh(hash, now) {
      const key = Keys.refreshToken(hash);
      try {
        const { Attributes: item } = await documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: key,
            UpdateExpression: 'SET used_at = :at',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used_at) AND #ttl > :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':at': now.toISOString(), ':now': epochSeconds(now) },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return { outcome: 'fresh', grant_id: String((item as Item).grant_id) };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const used = await getLive<{ grant_id: string; used_at?: string }>(table, key, now);
      return used?.used_at ? { outcome: 'reused', grant_id: used.grant_id } : null;
    },

    putAccess: (hash, token) =>
      put(Keys.accessToken(hash), Keys.ItemType.AccessToken, token, token.expires_at),
    getAccess: (hash, now) => getLive<Auth.AccessToken>(table, Keys.accessToken(hash), now),

    putPending: (hash, pending) =>
      put(Keys.pendingSignIn(hash), Keys.ItemType.PendingSignIn, pending, pending.expires_at),
    takePending: (hash, now) => take<Auth.PendingSignIn>(Keys.pendingSignIn(hash), now),

    listSignIns: (person, page) =>
      queryPage<Auth.Session | Auth.SignInGrant>(
        table,
        {
          index: 'gsi1',
          partition: Keys.signInsOf(person.user_id),
          newestFirst: true,
          filter: {
            expression:
              'credentials_epoch = :epoch AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
            values: { ':epoch': person.credentials_epoch, ':null': null },
          },
        },
        page,
      ),

    async revokeSignIn(userId, id, now) {
      const { partitionKey, sortKey } = Keys.globalIndex('gsi1');
      const found = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'gsi1',
          KeyConditionExpression: '#pk = :pk AND #sk = :id',
          ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
          ExpressionAttributeValues: { ':pk': Keys.signInsOf(userId), ':id': id },
        }),
      );
      const item = found.Items?.[0];
      if (!item) return false;
      await markRevoked({ pk: String(item.pk), sk: String(item.sk) }, now);
      return true;
    },
  };
}
