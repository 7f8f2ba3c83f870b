/** Sessions, authorization codes, sign-in grants and their tokens, each keyed by the SHA-256 of its secret. */
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import { epochSeconds, globalIndex, type Item, type Key, keyOf } from './entities/entity.ts';
import {
  AccessToken,
  AuthorizationCode,
  PendingSignIn,
  RefreshToken,
  Session,
  SignInGrant,
} from './entities/index.ts';
import { signInsOf } from './entities/sign-in-item.ts';
import {
  conditionHeld,
  getItem,
  getLive,
  isConditionFailure,
  queryPage,
  type ReadItem,
  type Table,
} from './table.ts';

/** A person's sign-ins list holds their sessions and CLI sign-ins. */
const signInFromItem = (item: Item): Auth.Session | Auth.SignInGrant =>
  item.item_type === Session.type ? Session.fromItem(item) : SignInGrant.fromItem(item);

export function dynamoSignInStore(table: Table): Auth.SignInStore {
  const { documents } = table;

  const put = async (item: Item) => {
    await documents.send(
      new PutCommand({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  };

  /** Deletes and returns a live single-use item; null when absent, expired or already taken. */
  const take = async <T>(key: Key, now: Date, read: ReadItem<T>): Promise<T | null> => {
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
      return item ? read(item) : null;
    } catch (error) {
      if (isConditionFailure(error)) return null;
      throw error;
    }
  };

  const markRevoked = (key: Key, now: Date) =>
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
    putSession: (hash, session) => put(Session.toItem(hash, session)),
    getSession: (hash, now) => getLive(table, Session.key(hash), now, Session.fromItem),
    async touchSession(hash, idleExpiresAt) {
      await conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: Session.key(hash),
            UpdateExpression: 'SET idle_expires_at = :idle',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':idle': idleExpiresAt },
          }),
        ),
      );
    },
    async revokeSession(hash, now) {
      await markRevoked(Session.key(hash), now);
    },

    putCode: (hash, code) => put(AuthorizationCode.toItem(hash, code)),
    takeCode: (hash, now) => take(AuthorizationCode.key(hash), now, AuthorizationCode.fromItem),

    putGrant: (grant) => put(SignInGrant.toItem(grant.id, grant)),
    getGrant: (id) => getItem(table, SignInGrant.key(id), SignInGrant.fromItem),
    async revokeGrant(id, now) {
      await markRevoked(SignInGrant.key(id), now);
    },

    putRefresh: (hash, entry) => put(RefreshToken.toItem(hash, entry)),
    async useRefresh(hash, now) {
      const key = RefreshToken.key(hash);
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
        // ALL_NEW answers the item as written: an empty answer is read as the bad item it would be.
        return { outcome: 'fresh', grant_id: RefreshToken.fromItem(item ?? {}).grant_id };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
      const used = await getLive(table, key, now, RefreshToken.fromItem);
      return used?.used_at ? { outcome: 'reused', grant_id: used.grant_id } : null;
    },

    putAccess: (hash, token) => put(AccessToken.toItem(hash, token)),
    getAccess: (hash, now) => getLive(table, AccessToken.key(hash), now, AccessToken.fromItem),

    putPending: (hash, pending) => put(PendingSignIn.toItem(hash, pending)),
    takePending: (hash, now) => take(PendingSignIn.key(hash), now, PendingSignIn.fromItem),

    listSignIns: (person, page) =>
      queryPage(
        table,
        {
          index: 'gsi1',
          partition: signInsOf(person.user_id),
          newestFirst: true,
          filter: {
            expression:
              'credentials_epoch = :epoch AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
            values: { ':epoch': person.credentials_epoch, ':null': null },
          },
        },
        page,
        signInFromItem,
      ),

    async revokeSignIn(userId, id, now) {
      const { partitionKey, sortKey } = globalIndex('gsi1');
      const found = await documents.send(
        new QueryCommand({
          TableName: table.name,
          IndexName: 'gsi1',
          KeyConditionExpression: '#pk = :pk AND #sk = :id',
          ExpressionAttributeNames: { '#pk': partitionKey, '#sk': sortKey },
          ExpressionAttributeValues: { ':pk': signInsOf(userId), ':id': id },
        }),
      );
      const item = found.Items?.[0];
      if (!item) return false;
      await markRevoked(keyOf(item), now);
      return true;
    },
  };
}
