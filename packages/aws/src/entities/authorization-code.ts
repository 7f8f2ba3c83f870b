/** An OAuth authorization code for the CLI, for 60 s, taken once by a conditional delete. */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { recordEntries } from './entity.ts';
import { personEntries } from './session.ts';
import { signInItem } from './sign-in-item.ts';
import { grants } from './user.ts';

export const { type, key, toItem, fromItem } = signInItem<Auth.AuthorizationCode>()({
  type: 'authorization_code',
  key: (hash) => ({ pk: `OAUTHCODE#${hash}`, sk: 'CODE' }),
  entries: recordEntries<Auth.AuthorizationCode>()({
    ...personEntries,
    claim_grants: grants,
    // Absent on items written before provider sign-ins were kept.
    provider_sign_in: v.optional(v.nullable(v.string()), null),
    client_id: v.string(),
    redirect_uri: v.string(),
    code_challenge: v.string(),
    expires_at: v.string(),
  }),
});
