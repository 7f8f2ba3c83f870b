import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Auth } from '@svc/core';
import * as Keys from './keys.ts';
import { epochSeconds, type Table } from './table.ts';

/** Prefix that makes leaked tokens recognisable to secret scanners. */
const tokenPrefix = 'svc_';

export function dynamoTokenStore(table: Table): Auth.TokenStore {
  return {
    async issue({ subject, role, now, expires_at }) {
      const token = `${tokenPrefix}${randomBytes(32).toString('base64url')}`;
      await table.documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...Keys.token(token),
            item_type: Keys.ItemType.Token,
            subject,
            role,
            created_at: now.toISOString(),
            expires_at,
            ...(expires_at ? { ttl: epochSeconds(expires_at) } : {}),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return token;
    },

    async verify(token, now) {
      if (!token.startsWith(tokenPrefix)) return null;
      const { Item: item } = await table.documents.send(
        new GetCommand({ TableName: table.name, Key: Keys.token(token) }),
      );
      if (!item || item.revoked_at) return null;
      if (item.expires_at && Date.parse(item.expires_at) <= now.getTime()) return null;
      return {
        subject: item.subject,
        role: item.role,
        grants: Auth.grantsOfRole(item.role),
        author: item.subject,
      };
    },
  };
}
