/**
 * People, by name, with a link item per identity-provider subject. Every write is conditional on
 * the record read (its id and credentials epoch), so an epoch never moves back and a deleted name
 * created again is never mistaken for the person who had it.
 */
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, failedConditions, type Item, queryPage, stripKeys, type Table } from './table.ts';

/** Records written before people had ids read as a person of their own, at epoch 0. */
function userFrom(item: Item): Auth.User {
  const stored = stripKeys<Partial<Auth.User> & { username: string }>(item);
  return {
    ...stored,
    id: stored.id ?? `usr-legacy-${stored.username}`,
    credentials_epoch: stored.credentials_epoch ?? 0,
    oidc_subject: stored.oidc_subject ?? null,
  } as Auth.User;
}

function userItem(user: Auth.User): Item {
  return {
    ...Keys.user(user.username),
    item_type: Keys.ItemType.User,
    ...Keys.listedUser(user.username),
    ...user,
  };
}

function subjectLink(user: Auth.User & { oidc_subject: Auth.OidcSubject }): Item {
  return {
    ...Keys.oidcSubject(user.oidc_subject.issuer, user.oidc_subject.sub),
    item_type: Keys.ItemType.OidcSubject,
    username: user.username,
    user_id: user.id,
  };
}

const sameRecord = {
  ConditionExpression: 'id = :id AND credentials_epoch = :epoch',
};

export function dynamoUserStore(table: Table): Auth.UserStore {
  const { documents } = table;
  const get = async (username: string) => {
    const { Item: item } = await documents.send(
      new GetCommand({ TableName: table.name, Key: Keys.user(username), ConsistentRead: true }),
    );
    return item ? userFrom(item) : null;
  };
  /** Legacy records have no id or epoch attribute: their first write adds them. */
  const readAs = (read: Auth.PersonRef) =>
    read.user_id.startsWith('usr-legacy-')
      ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(id)' }
      : {
          ...sameRecord,
          ExpressionAttributeValues: { ':id': read.user_id, ':epoch': read.credentials_epoch },
        };

  return {
    get,

    async getBySubject(subject) {
      const { Item: link } = await documents.send(
        new GetCommand({
          TableName: table.name,
          Key: Keys.oidcSubject(subject.issuer, subject.sub),
          ConsistentRead: true,
        }),
      );
      if (!link) return null;
      const user = await get(String(link.username));
      return user?.id === link.user_id ? user : null;
    },

    async create(user) {
      const put = {
        Put: { TableName: table.name, Item: userItem(user), ConditionExpression: 'attribute_not_exists(pk)' },
      };
      const link = user.oidc_subject
        ? {
            Put: {
              TableName: table.name,
              Item: subjectLink({ ...user, oidc_subject: user.oidc_subject }),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          }
        : null;
      try {
        await documents.send(new TransactWriteCommand({ TransactItems: link ? [put, link] : [put] }));
        return true;
      } catch (error) {
        if (failedConditions(error)?.some(Boolean)) return false;
        throw error;
      }
    },

    replace: (user, read) =>
      conditionHeld(() =>
        documents.send(new PutCommand({ TableName: table.name, Item: userItem(user), ...readAs(read) })),
      ),

    endSignIns: (username, at) =>
      conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: Keys.user(username),
            UpdateExpression: 'SET updated_at = :at ADD credentials_epoch :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':at': at, ':one': 1 },
          }),
        ),
      ),

    async setPasswordHash(username, from, to) {
      await conditionHeld(() =>
        documents.send(
          new UpdateCommand({
            TableName: table.name,
            Key: Keys.user(username),
            UpdateExpression: 'SET password_hash = :to',
            ConditionExpression: 'password_hash = :from',
            ExpressionAttributeValues: { ':from': from, ':to': to },
          }),
        ),
      );
    },

    async delete(username) {
      const user = await get(username);
      if (!user) return false;
      if (!user.oidc_subject) {
        return conditionHeld(() =>
          documents.send(
            new DeleteCommand({
              TableName: table.name,
              Key: Keys.user(username),
              ConditionExpression: 'attribute_exists(pk)',
            }),
          ),
        );
      }
      await documents.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table.name, Key: Keys.user(username) } },
            {
              Delete: {
                TableName: table.name,
                Key: Keys.oidcSubject(user.oidc_subject.issuer, user.oidc_subject.sub),
              },
            },
          ],
        }),
      );
      return true;
    },

    list: async (page) => {
      const found = await queryPage<Item>(
        table,
        { index: 'gsi1', partition: Keys.allUsers, newestFirst: false },
        page,
      );
      return { items: found.items.map(userFrom), next_cursor: found.next_cursor };
    },
  };
}
