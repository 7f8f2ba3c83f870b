// GitHub's two paging schemes: numbered pages (`per_page` + `page`, Link rel="prev|next|last|first")
// and, for hook deliveries, an opaque cursor (Link rel="next" only). Link URLs repeat the request's
// other query parameters, so clients can follow them as they are.

import { GitHubError } from './errors.ts';

const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

export interface Page<T> {
  items: T[];
  /** The Link header value, or null when everything fits in one page. */
  link: string | null;
}

function positiveInt(value: string | null, fallback: number): number {
  const n = Number(value);
  return value !== null && Number.isInteger(n) && n > 0 ? n : fallback;
}

function perPage(url: URL): number {
  return Math.min(positiveInt(url.searchParams.get('per_page'), DEFAULT_PER_PAGE), MAX_PER_PAGE);
}

function linkTo(url: URL, params: Record<string, string>, rel: string): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return `<${target.href}>; rel="${rel}"`;
}

export function numberedPage<T>(all: T[], url: URL): Page<T> {
  const size = perPage(url);
  const page = positiveInt(url.searchParams.get('page'), 1);
  const last = Math.max(1, Math.ceil(all.length / size));
  const links: string[] = [];
  const at = (n: number) => ({ per_page: String(size), page: String(n) });
  if (page > 1) links.push(linkTo(url, at(Math.min(page - 1, last)), 'prev'));
  if (page < last) links.push(linkTo(url, at(page + 1), 'next'), linkTo(url, at(last), 'last'));
  if (page > 1) links.push(linkTo(url, at(1), 'first'));
  return { items: all.slice((page - 1) * size, page * size), link: links.length ? links.join(', ') : null };
}

/** `all` must be sorted newest first by descending numeric id; the cursor names the next page's first id. */
export function cursorPage<T extends { id: number }>(all: T[], url: URL): Page<T> {
  const size = perPage(url);
  const cursor = url.searchParams.get('cursor');
  let start = 0;
  if (cursor) {
    const match = /^v1_(\d+)$/.exec(cursor);
    if (!match) throw new GitHubError(422, `Invalid cursor: ${cursor}`);
    const from = Number(match[1]);
    start = all.findIndex((item) => item.id <= from);
    if (start === -1) start = all.length;
  }
  const items = all.slice(start, start + size);
  const next = all[start + size];
  return {
    items,
    link: next ? linkTo(url, { per_page: String(size), cursor: `v1_${next.id}` }, 'next') : null,
  };
}
