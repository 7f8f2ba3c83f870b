/**
 * A sign-in at the identity provider: what the sessions and CLI sign-ins made from it read their
 * grants from, with the provider's tokens sealed (AES-GCM under a key derived from the
 * installation's cursor key: the table holds no usable provider token). Until its `expires_at`.
 */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { epochSeconds, type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';
import { grants } from './user.ts';

export const type = 'provider_sign_in';

export const key = (id: string): Key => ({ pk: `IDPSIGNIN#${id}`, sk: 'IDPSIGNIN' });

/** The record as stored: its tokens sealed. */
export type StoredProviderSignIn = Omit<Auth.ProviderSignIn, 'tokens'> & { tokens: string };

export const toItem = (record: StoredProviderSignIn): Item => ({
  ...key(record.id),
  item_type: type,
  ...record,
  ttl: epochSeconds(record.expires_at),
});

const schema = itemSchema(
  type,
  recordEntries<StoredProviderSignIn>()({
    id: v.string(),
    user_id: v.string(),
    sub: v.string(),
    claim_grants: grants,
    tokens: v.string(),
    checked_at: v.string(),
    leased_until: v.nullable(v.string()),
    ended_at: v.nullable(v.string()),
    created_at: v.string(),
    expires_at: v.string(),
    lock_version: v.number(),
  }),
);

export const fromItem = (item: Item): StoredProviderSignIn => readItem(schema, item);
