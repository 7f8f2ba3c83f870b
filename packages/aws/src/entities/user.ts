/**
 * A person, by name, with an immutable id and a credentials epoch. Records written before people
 * had ids read as a person of their own (`usr-legacy-<name>`) at epoch 0.
 */
import { Auth } from '@svc/core';
import * as v from 'valibot';
import { everyIn, type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';

export const type = 'user';

export const key = (username: string): Key => ({ pk: `USER#${username}`, sk: 'USER' });

/** Every user, by name. */
export const listed = everyIn('gsi1', 'USERS', {
  sort: (user: Pick<Auth.User, 'username'>) => user.username,
  newestFirst: false,
});

export const toItem = (user: Auth.User): Item => ({
  ...key(user.username),
  item_type: type,
  ...listed.entry(user),
  ...user,
});

/** Grants as stored: checked by Auth.Grant when they were given. */
export const grants = v.array(
  v.object({
    role: v.enum(Auth.GrantRole),
    project: v.string(),
    repository: v.nullable(v.string()),
    components: v.exactOptional(v.array(v.string())),
  }),
);

const oidcSubject = v.object({ issuer: v.string(), sub: v.string() });

const schema = v.pipe(
  itemSchema(
    type,
    recordEntries<Auth.User>()({
      id: v.exactOptional(v.string()),
      username: v.string(),
      grants,
      password_hash: v.nullable(v.string()),
      disabled: v.boolean(),
      credentials_epoch: v.exactOptional(v.number()),
      oidc_subject: v.exactOptional(v.nullable(oidcSubject)),
      created_at: v.string(),
      updated_at: v.string(),
    }),
  ),
  v.transform(
    (stored): Auth.User => ({
      ...stored,
      id: stored.id ?? `usr-legacy-${stored.username}`,
      credentials_epoch: stored.credentials_epoch ?? 0,
      oidc_subject: stored.oidc_subject ?? null,
    }),
  ),
);

export const fromItem = (item: Item): Auth.User => readItem(schema, item);
