import * as v from 'valibot';

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

/** Cursors are base64url JSON; the store decides what is inside and checks it on the way back. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function decodeCursor(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Pages over an in-memory, name-sorted list (e.g. a catalog version's components). */
export function pageByName<T extends { name: string }>(
  items: readonly T[],
  page: PageRequest,
): Page<T> | null {
  const sorted = [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let start = 0;
  if (page.after !== null) {
    const last = decodeCursor(page.after);
    if (typeof last !== 'object' || last === null || typeof (last as { n?: unknown }).n !== 'string')
      return null;
    const after = (last as { n: string }).n;
    start = sorted.findIndex((item) => item.name > after);
    if (start === -1) start = sorted.length;
  }
  const slice = sorted.slice(start, start + page.limit);
  const more = start + page.limit < sorted.length;
  return { items: slice, next_cursor: more && slice.length ? encodeCursor({ n: slice.at(-1)?.name }) : null };
}
