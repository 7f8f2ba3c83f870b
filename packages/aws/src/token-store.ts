import { randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sha256, type TokenStore } from '@svc/core';
import { epochSeconds, type Table } from './table.ts';

/** Prefix that makes leaked tokens recognisable to secret scanners. */
const tokenPrefix = 'svc_';

const key = (token: string) => ({ pk: `TOKEN#${sha256(token)}`, sk: 'TOKEN' });

export function dynamoTokenStore(table: Table): TokenStore {
  return {
    async issue({ subject, role, now, expires_at }) {
      const token = `${tokenPrefix}${randomBytes(32).toString('base64url')}`;
      await table.documents.send(
        new PutCommand({
          TableName: table.name,
          Item: {
            ...key(token),
            item_type: 'token',
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
        new GetCommand({ TableName: table.name, Key: key(token) }),
      );
      if (!item || item.revoked_at) return null;
      if (item.expires_at && Date.parse(item.expires_at) <= now.getTime()) return null;
      return { subject: item.subject, role: item.role, author: item.subject };
    },
  };
}
