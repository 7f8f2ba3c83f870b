/** A CLI refresh token, used once (a conditional update sets `used_at`); a second use is a replay. */
import * as v from 'valibot';
import { signInItem } from './sign-in-item.ts';

export const { type, key, toItem, fromItem } = signInItem<{ grant_id: string; expires_at: string }>()({
  type: 'refresh_token',
  key: (hash) => ({ pk: `REFRESH#${hash}`, sk: 'REFRESH' }),
  entries: { grant_id: v.string(), expires_at: v.string(), used_at: v.exactOptional(v.string()) },
});
