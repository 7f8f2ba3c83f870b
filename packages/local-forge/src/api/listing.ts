// Lists as GitHub answers them: a page with its Link header, pull requests filtered by state and sorted.

import type { Context } from 'hono';
import type { Page } from '../paging.ts';
import type { PullRecord } from '../state.ts';
import { oneOf } from './input.ts';

export function paged<T>(c: Context, page: Page<T>, body: unknown = page.items): Response {
  if (page.link) c.header('Link', page.link);
  return c.json(body);
}

/** `sort` and `direction` as GitHub reads them: newest first by default, oldest first for `updated`. */
export function sorted(pulls: PullRecord[], url: URL): PullRecord[] {
  const sort = url.searchParams.get('sort') ?? 'created';
  const key = sort === 'updated' ? 'updatedAt' : 'createdAt';
  const direction = url.searchParams.get('direction') ?? (sort === 'created' ? 'desc' : 'asc');
  const order = direction === 'asc' ? 1 : -1;
  return [...pulls].sort((a, b) => order * (a[key].localeCompare(b[key]) || a.number - b.number));
}

export function stateFilter(url: URL): (pull: PullRecord) => boolean {
  const state = oneOf('state', url.searchParams.get('state') ?? 'open', ['open', 'closed', 'all']);
  return (pull) => state === 'all' || pull.state === state;
}
