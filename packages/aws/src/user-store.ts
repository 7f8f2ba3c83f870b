/**
 * People, by name, with a link item per identity-provider subject. Every write is conditional on
 * the record read (its id and credentials epoch), so an epoch never moves back and a deleted name
 * created again is never mistaken for the person who had it.
 */
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import { OidcSubject, User } from './entities/index.ts';
import { conditionHeld, failedConditions, getItem, queryPage, type Table } from './table.ts';

const sameRecord = {
  ConditionExpression: 'id = :id AND credentials_epoch = :epoch',
};

export function dynamoUserStore(table: Table): Auth.UserStore {
  return {
    get: (username) => get(table, username),
    getBySubject: (subject) => getBySubject(table, subject),
    create: (user) => create(table, user),
    replace: (user, read) => replace(table, user, read),
    endSignIns: (username, at) => endSignIns(table, username, at),
    setPasswordHash: (username, from, to) => setPasswordHash(table, username, from, to),
    delete: (username) => deleteUser(table, username),
    list: (page) => queryPage(table, User.listed.query(), page, User.fromItem),
  };
}

function get(table: Table, username: string): Promise<Auth.User | null> {
  return getItem(table, User.key(username), User.fromItem);
}

/** Legacy records have no id or epoch attribute: their first write adds them. */
const readAs = (read: Auth.PersonRef) =>
  read.user_id.startsWith('usr-legacy-')
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(id)' }
    : {
        ...sameRecord,
        ExpressionAttributeValues: { ':id': read.user_id, ':epoch': read.credentials_epoch },
      };

async function getBySubject(table: Table, subject: Auth.OidcSubject): Promise<Auth.User | null> {
  const link = await getItem(table, OidcSubject.key(subject), OidcSubject.fromItem);
  if (!link) return null;
  const user = await get(table, link.username);
  return user?.id === link.user_id ? user : null;
}

async function create(table: Table, user: Auth.User): Promise<boolean> {
  const put = {
    Put: {
      TableName: table.name,
      Item: User.toItem(user),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
  const link = user.oidc_subject
    ? {
        Put: {
          TableName: table.name,
          Item: OidcSubject.toItem(user, user.oidc_subject),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      }
    : null;
  try {
    await table.documents.send(new TransactWriteCommand({ TransactItems: link ? [put, link] : [put] }));
    return true;
  } catch (error) {
    if (failedConditions(error)?.some(Boolean)) return false;
    throw error;
  }
}

function replace(table: Table, user: Auth.User, read: Auth.PersonRef): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(new PutCommand({ TableName: table.name, Item: User.toItem(user), ...readAs(read) })),
  );
}

function endSignIns(table: Table, username: string, at: string): Promise<boolean> {
  return conditionHeld(() =>
    table.documents.send(
      new UpdateCommand({
        TableName: table.name,
        Key: User.key(username),
        UpdateExpression: 'SET updated_at = :at ADD credentials_epoch :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': at, ':one': 1 },
      }),
    ),
  );
}

async function setPasswordHash(table: Table, username: string, from: string, to: string): Promise<void> {
  await conditionHeld(() =>
    table.documents.send(
      new UpdateCommand({
        TableName: table.name,
        Key: User.key(username),
        UpdateExpression: 'SET password_hash = :to',
        ConditionExpression: 'password_hash = :from',
        ExpressionAttributeValues: { ':from': from, ':to': to },
      }),
    ),
  );
}

async function deleteUser(table: Table, username: string): Promise<boolean> {
  const user = await get(table, username);
  if (!user) return false;
  if (!user.oidc_subject) {
    return conditionHeld(() =>
      table.documents.send(
        new DeleteCommand({
          TableName: table.name,
          Key: User.key(username),
          ConditionExpression: 'attribute_exists(pk)',
        }),
      ),
    );
  }
  await table.documents.send(
    new TransactWriteCommand({
      TransactItems: [
        { Delete: { TableName: table.name, Key: User.key(username) } },
        { Delete: { TableName: table.name, Key: OidcSubject.key(user.oidc_subject) } },
      ],
    }),
  );
  return true;
}
