import { createHmac, timingSafeEqual } from 'node:crypto';
import * as v from 'valibot';
import { canonicalJson } from './canonical.ts';

export const defaultPageSize = 50;
export const maxPageSize = 200;

export interface PageRequest {
  limit: number;
  /** Opaque cursor from a previous page's `next_cursor`. */
  after: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export function pageSchema<TItem extends v.GenericSchema>(item: TItem) {
  return v.object({ items: v.array(item), next_cursor: v.nullable(v.string()) });
}

/**
 * Page cursors are opaque to clients and bound to their list: a cursor is the list's position
 * (what the store needs to read on) sealed with an HMAC over the list's identity and filter and
 * that position, under a key of the installation. A cursor of another list, another filter or
 * another installation, or one made by hand, opens to nothing, and the list answers 400
 * `invalid_query` before it reads anything (docs/decisions.md, "Lists and paging").
 */
export interface Cursors {
  /** The cursor of `position` in the list `list` names (its identity and filter, any JSON). */
  seal(list: unknown, position: unknown): string;
  /** The position `cursor` holds if this installation sealed it for `list`; undefined otherwise. */
  open(list: unknown, cursor: string): unknown;
}

/** Keys shorter than this are refused: the seal is only as strong as its key. */
export const minCursorKeyLength = 32;
const macBytes = 16;
/**
 * The first character of every cursor. Base64url may begin with `-`, and `svc … --after -x…` is
 * then refused by the command line as a flag where a value belongs: one page in 64 could not be
 * followed.
 */
const cursorMark = 'c';

export function cursors(key: string): Cursors {
  if (key.length < minCursorKeyLength) {
    throw new Error(`the cursor key must be at least ${minCursorKeyLength} characters`);
  }
  const mac = (list: unknown, position: Buffer) =>
    createHmac('sha256', key)
      .update(canonicalJson(list))
      .update('\n')
      .update(position)
      .digest()
      .subarray(0, macBytes);
  return {
    seal(list, position) {
      const bytes = Buffer.from(JSON.stringify(position));
      return cursorMark + Buffer.concat([mac(list, bytes), bytes]).toString('base64url');
    },
    open(list, cursor) {
      if (!/^[A-Za-z0-9_-]{1,2048}$/.test(cursor) || !cursor.startsWith(cursorMark)) return undefined;
      const raw = Buffer.from(cursor.slice(cursorMark.length), 'base64url');
      if (raw.length <= macBytes) return undefined;
      const position = raw.subarray(macBytes);
      if (!timingSafeEqual(raw.subarray(0, macBytes), mac(list, position))) return undefined;
      try {
        return JSON.parse(position.toString('utf8'));
      } catch {
        return undefined;
      }
    },
  };
}

/** Pages over an in-memory, name-sorted list (e.g. a catalog version's components); null for a cursor not of `list`. */
export function pageByName<T extends { name: string }>(
  items: readonly T[],
  page: PageRequest,
  sealed: { cursors: Cursors; list: unknown },
): Page<T> | null {
  const sorted = [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let start = 0;
  if (page.after !== null) {
    const after = sealed.cursors.open(sealed.list, page.after);
    if (typeof after !== 'string') return null;
    start = sorted.findIndex((item) => item.name > after);
    if (start === -1) start = sorted.length;
  }
  const slice = sorted.slice(start, start + page.limit);
  const last = slice.at(-1);
  const more = start + page.limit < sorted.length;
  return { items: slice, next_cursor: more && last ? sealed.cursors.seal(sealed.list, last.name) : null };
}
