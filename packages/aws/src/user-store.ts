import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import { conditionHeld, queryPage, stripKeys, type Table } from './table.ts';

export function dynamoUserStore(table: Table): Auth.UserStore {
  const { documents } = table;
  return {
    async get(username) {
      const { Item: item } = await documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.user(username), ConsistentRead: true }),
      );
      return item ? stripKeys<Auth.User>(item) : null;
    },

    async put(user) {
      await documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...Keys.user(user.username),
            item_type: Keys.ItemType.User,
            ...Keys.listedUser(user.username),
            ...user,
          },
        }),
      );
    },

    delete: (username) =>
      conditionHeld(() =>
        documents.send(
          new DeleteCommand({
            TableName: table.name,
            Key: Keys.user(username),
            ConditionExpression: 'attribute_exists(pk)',
          }),
        ),
      ),

    list: (page) =>
      queryPage<Auth.User>(table, { index: 'gsi1', partition: Keys.allUsers, newestFirst: false }, page),
  };
}
