/** Sessions, authorization codes, sign-in grants and their tokens, each keyed by the SHA-256 of its secret. */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth, Page, PageRequest } from '@svc/core';
import { epochSeconds, type Item, type Key, keyOf } from './entities/entity.ts';
import {
  AccessToken,
  AuthorizationCode,
  PendingSignIn,
  ProviderSignIn,
  RefreshToken,
  Session,
  SignInGrant,
} from './entities/index.ts';
import { ofPerson } from './entities/sign-in-item.ts';
import type { SecretSeal } from './sealed-tokens.ts';
import {
  conditionHeld,
  getItem,
  getLive,
  indexedItem,
  isConditionFailure,
  queryPage,
  type ReadItem,
  type Table,
} from './table.ts';

/** A person's sign-ins list holds their sessions and CLI sign-ins. */
const signInFromItem = (item: Item): Auth.Session | Auth.SignInGrant =>
  item.item_type === Session.type ? Session.fromItem(item) : SignInGrant.fromItem(item);

export function dynamoSignInStore(table: Table, seal: SecretSeal): Auth.SignInStore {
  const stored = (record: Auth.ProviderSignIn) =>
    ProviderSignIn.toItem({ ...record, tokens: seal.seal(JSON.stringify(record.tokens)) });
  return {
    putSession: (hash, session) => put(table, Session.toItem(hash, session)),
    getSession: (hash, now) => getLive(table, Session.key(hash), now, Session.fromItem),
    touchSession: (hash, idleExpiresAt) => touchSession(table, hash, idleExpiresAt),
    revokeSession: (hash, now) => markRevoked(table, Session.key(hash), now).then(() => undefined),

    putCode: (hash, code) => put(table, AuthorizationCode.toItem(hash, code)),
    takeCode: (hash, now) => take(table, AuthorizationCode.key(hash), now, AuthorizationCode.fromItem),

    putGrant: (grant) => put(table, SignInGrant.toItem(grant.id, grant)),
    getGrant: (id) => getItem(table, SignInGrant.key(id), SignInGrant.fromItem),
    revokeGrant: (id, now) => markRevoked(table, SignInGrant.key(id), now).then(() => undefined),

    putRefresh: (hash, entry) => put(table, RefreshToken.toItem(hash, entry)),
    useRefresh: (hash, now) => useRefresh(table, hash, now),

    putAccess: (hash, token) => put(table, AccessToken.toItem(hash, token)),
    getAccess: (hash, now) => getLive(table, AccessToken.key(hash), now, AccessToken.fromItem),

    putPending: (hash, pending) => put(table, PendingSignIn.toItem(hash, pending)),
    takePending: (hash, now) => take(table, PendingSignIn.key(hash), now, PendingSignIn.fromItem),

    listSignIns: (person, page) => listSignIns(table, person, page),
    revokeSignIn: (userId, id, now) => revokeSignIn(table, userId, id, now),

    putProviderSignIn: (record) => put(table, stored(record)),
    async getProviderSignIn(id) {
      const found = await getItem(table, ProviderSignIn.key(id), ProviderSignIn.fromItem);
      return found ? { ...found, tokens: JSON.parse(seal.open(found.tokens)) as Auth.ProviderTokens } : null;
    },
    replaceProviderSignIn: (record, expected) =>
      conditionHeld(() =>
        table.documents.send(
          new PutCommand({
            TableName: table.name,
            Item: stored(record),
            ConditionExpression: 'lock_version = :expected',
            ExpressionAttributeValues: { ':expected': expected },
          }),
        ),
      ),
  };
}

async function put(table: Table, item: Item): Promise<void> {
  await table.documents.send(
    new PutCommand({ TableName: table.name, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }),
  );
}

/** Deletes and returns a live single-use item; null when absent, expired or already taken. */
async function take<T>(table: Table, key: Key, now: Date, read: ReadItem<T>): Promise<T | null> {
  try {
    const { Attributes: item } = await table.documents.send(
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
}

function markRevoked(table: Table, key: Key, now: Date): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
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
}

async function touchSession(table: Table, hash: string, idleExpiresAt: string): Promise<void> {
  await conditionHeld(() =>
    table.documents.send(
      new UpdateCommand({
        TableName: table.name,
        Key: Session.key(hash),
        UpdateExpression: 'SET idle_expires_at = :idle',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':idle': idleExpiresAt },
      }),
    ),
  );
}

async function useRefresh(table: Table, hash: string, now: Date): ReturnType<Auth.SignInStore['useRefresh']> {
  const key = RefreshToken.key(hash);
  try {
    const { Attributes: item } = await table.documents.send(
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
}

function listSignIns(
  table: Table,
  person: Auth.PersonRef,
  page: PageRequest,
): Promise<Page<Auth.Session | Auth.SignInGrant>> {
  return queryPage(
    table,
    {
      ...ofPerson.query(person),
      filter: {
        expression: 'credentials_epoch = :epoch AND (attribute_not_exists(revoked_at) OR revoked_at = :null)',
        values: { ':epoch': person.credentials_epoch, ':null': null },
      },
    },
    page,
    signInFromItem,
  );
}

async function revokeSignIn(table: Table, userId: string, id: string, now: Date): Promise<boolean> {
  const item = await indexedItem(table, ofPerson.at({ user_id: userId }, id));
  if (!item) return false;
  await markRevoked(table, keyOf(item), now);
  return true;
}
