/** An identity-provider sign-in in flight, under the hash of the browser's sign-in cookie, for 10 minutes. */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { recordEntries } from './entity.ts';
import { signInItem } from './sign-in-item.ts';

export const { type, key, toItem, fromItem } = signInItem<Auth.PendingSignIn>()({
  type: 'pending_sign_in',
  key: (hash) => ({ pk: `PENDING#${hash}`, sk: 'PENDING' }),
  entries: recordEntries<Auth.PendingSignIn>()({
    state: v.string(),
    nonce: v.string(),
    code_verifier: v.string(),
    return_to: v.string(),
    expires_at: v.string(),
  }),
});
