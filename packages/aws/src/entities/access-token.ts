/** A CLI access token, for 15 minutes: it names its sign-in grant only. */
import type { Auth } from '@svc/core';
import * as v from 'valibot';
import { recordEntries } from './entity.ts';
import { signInItem } from './sign-in-item.ts';

export const { type, key, toItem, fromItem } = signInItem<Auth.AccessToken>()({
  type: 'access_token',
  key: (hash) => ({ pk: `ACCESS#${hash}`, sk: 'ACCESS' }),
  entries: recordEntries<Auth.AccessToken>()({
    grant_id: v.string(),
    username: v.string(),
    expires_at: v.string(),
  }),
});
