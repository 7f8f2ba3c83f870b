/** Who an identity provider's (issuer, sub) is: written in the same transaction as the person's record. */
import { type Auth, sha256 } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'oidc_subject';

/** Hashed, so any subject makes a safe key. */
export const key = (subject: Auth.OidcSubject): Key => ({
  pk: `OIDCSUB#${sha256(`${subject.issuer}\n${subject.sub}`)}`,
  sk: 'OIDCSUB',
});

export const toItem = (user: Pick<Auth.User, 'username' | 'id'>, subject: Auth.OidcSubject): Item => ({
  ...key(subject),
  item_type: type,
  username: user.username,
  user_id: user.id,
});

const schema = itemSchema(type, { username: v.string(), user_id: v.string() });

export const fromItem = (item: Item) => readItem(schema, item);
