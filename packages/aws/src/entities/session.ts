/** A browser session: until its absolute expiry (sign-in + 12 h), listed among its person's sign-ins. */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { recordEntries } from './entity.ts';
import { ofPerson, signInItem } from './sign-in-item.ts';

/** Listed among its person's sign-ins. */
export { ofPerson };

import { grants } from './user.ts';

/** What every credential names of its person. */
export const personEntries = { username: v.string(), user_id: v.string(), credentials_epoch: v.number() };

export const { type, key, toItem, fromItem } = signInItem<Auth.Session>()({
  type: 'session',
  key: (hash) => ({ pk: `SESSION#${hash}`, sk: 'SESSION' }),
  entries: recordEntries<Auth.Session>()({
    ...personEntries,
    id: v.string(),
    claim_grants: grants,
    // Absent on items written before provider sign-ins were kept.
    provider_sign_in: v.optional(v.nullable(v.string()), null),
    created_at: v.string(),
    idle_expires_at: v.string(),
    expires_at: v.string(),
    revoked_at: v.nullable(v.string()),
  }),
  listed: ofPerson.entry,
});
