/**
 * One counter per rate-limited key and fixed window, incremented by a conditional `ADD hits :1`,
 * so every API instance counts into the same window; kept until a minute after the window ends.
 */
import { sha256 } from '@svc/core';
import * as v from 'valibot';
import { type Item, type Key, readItem } from './entity.ts';

export const type = 'rate_window';

/** The key is hashed so any name is safe. */
export const key = (rateKey: string, windowStart: string): Key => ({
  pk: `RATE#${sha256(rateKey).slice(0, 32)}#${windowStart}`,
  sk: 'RATE',
});

/** What a count reads: only the counter is projected. */
const counted = v.object({ hits: v.number() });

export const hitsOf = (item: Item) => readItem(counted, item).hits;
