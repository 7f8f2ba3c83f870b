/**
 * A machine token, under the SHA-256 of its secret (the secret itself is never stored), kept 30
 * days after it expires or is revoked. Tokens issued before grants existed carry a `role`
 * (admin|member) and no id: they read as admin or developer on every project, under their old subject.
 */
import { Auth, sha256 } from '@svc/core';
import * as v from 'valibot';
import { epochSeconds, everyIn, type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';
import { grants } from './user.ts';

export const type = 'token';

/** Kept this long after expiry or revocation, so the list still shows what happened. */
export const retainedSeconds = 30 * 86_400;

const partitionPrefix = 'TOKEN#';

export const key = (secret: string): Key => ({ pk: `${partitionPrefix}${sha256(secret)}`, sk: 'TOKEN' });

/** Every machine token by id, newest first (ids sort by issue time): lists and revocation find it. */
export const listed = everyIn('gsi1', 'TOKENS', {
  sort: (token: Pick<Auth.MachineToken, 'id'>) => token.id,
  newestFirst: true,
});

export function toItem(token: Auth.MachineToken, secret: string): Item {
  const ends = token.expires_at ?? token.revoked_at;
  return {
    ...key(secret),
    item_type: type,
    ...listed.entry(token),
    ...token,
    ...(ends ? { ttl: epochSeconds(ends) + retainedSeconds } : {}),
  };
}

const schema = itemSchema(
  type,
  recordEntries<Auth.MachineToken>()({
    id: v.string(),
    name: v.string(),
    subject: v.string(),
    grants,
    created_at: v.string(),
    created_by: v.string(),
    expires_at: v.nullable(v.string()),
    revoked_at: v.nullable(v.string()),
  }),
);

const legacySchema = v.pipe(
  v.object({
    pk: v.string(),
    item_type: v.literal(type),
    subject: v.string(),
    role: v.exactOptional(v.string()),
    created_at: v.exactOptional(v.string()),
    expires_at: v.exactOptional(v.nullable(v.string())),
    revoked_at: v.exactOptional(v.nullable(v.string())),
  }),
  v.transform(
    (stored): Auth.MachineToken => ({
      id: `legacy-${stored.pk.slice(partitionPrefix.length, partitionPrefix.length + 12)}`,
      name: stored.subject,
      subject: stored.subject,
      grants: Auth.grantsOfRole(stored.role === Auth.Role.Admin ? Auth.Role.Admin : Auth.Role.Member),
      created_at: stored.created_at ?? '',
      created_by: 'operator',
      expires_at: stored.expires_at ?? null,
      revoked_at: stored.revoked_at ?? null,
    }),
  ),
);

export const fromItem = (item: Item): Auth.MachineToken =>
  'grants' in item ? readItem(schema, item) : readItem(legacySchema, item);
