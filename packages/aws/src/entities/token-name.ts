/**
 * A live machine token's name, held until the token expires or is revoked: put in the issue's
 * transaction on condition that none is held, so names are unique among live tokens. Never read:
 * only its condition and its deletion on revocation use it.
 */
import type { Auth } from '@svc/core';
import { epochSeconds, type Item, type Key } from './entity.ts';

export const type = 'token_name';

export const key = (name: string): Key => ({ pk: `TOKENNAME#${name}`, sk: 'TOKENNAME' });

/** Where a token that never expires holds its name until revoked. */
const never = '9999-12-31T23:59:59.999Z';

export const toItem = (token: Pick<Auth.MachineToken, 'id' | 'name' | 'expires_at'>): Item => ({
  ...key(token.name),
  item_type: type,
  token_id: token.id,
  held_until: token.expires_at ?? never,
  ...(token.expires_at ? { ttl: epochSeconds(token.expires_at) } : {}),
});
