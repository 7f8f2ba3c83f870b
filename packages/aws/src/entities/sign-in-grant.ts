/** One CLI sign-in: the family of its refresh and access tokens, for 30 days, listed among its person's sign-ins. */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { recordEntries } from './entity.ts';
import { personEntries } from './session.ts';
import { ofPerson, signInItem } from './sign-in-item.ts';

/** Listed among its person's sign-ins. */
export { ofPerson };

import { grants } from './user.ts';

/** Keyed by its id, not a hash: no client holds a grant, only its tokens. */
export const { type, key, toItem, fromItem } = signInItem<Auth.SignInGrant>()({
  type: 'sign_in_grant',
  key: (id) => ({ pk: `SIGNIN#${id}`, sk: 'GRANT' }),
  entries: recordEntries<Auth.SignInGrant>()({
    ...personEntries,
    id: v.string(),
    claim_grants: grants,
    // Absent on items written before provider sign-ins were kept.
    provider_sign_in: v.optional(v.nullable(v.string()), null),
    client_id: v.string(),
    created_at: v.string(),
    expires_at: v.string(),
    revoked_at: v.nullable(v.string()),
  }),
  listed: ofPerson.entry,
});
