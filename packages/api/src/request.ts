import {
  defaultPageSize,
  ErrorCode,
  isDnsLabel,
  maxPageSize,
  type PageRequest,
  ProblemError,
} from '@svc/core';
import type { Context } from 'hono';

/** The body as JSON; malformed JSON is a 400 naming the parse error. An empty body reads as undefined. */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProblemError(
      ErrorCode.MalformedJson,
      `The body is not valid JSON: ${(error as Error).message}`,
    );
  }
}

export function invalidQuery(name: string, message: string): ProblemError {
  return new ProblemError(ErrorCode.InvalidQuery, `${name}: ${message}`, {
    errors: [{ path: name, message }],
  });
}

/** An optional integer query parameter within bounds; anything else is a 400 naming it. */
export function integerQuery(
  c: Context,
  name: string,
  bounds: { min: number; max: number },
): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined) return undefined;
  if (!/^\d{1,10}$/.test(raw))
    throw invalidQuery(name, `must be an integer from ${bounds.min} to ${bounds.max}`);
  const value = Number(raw);
  if (value < bounds.min || value > bounds.max) {
    throw invalidQuery(name, `must be an integer from ${bounds.min} to ${bounds.max}`);
  }
  return value;
}

/** `limit` (default 50, max 200) and `after` (an opaque cursor), as every list takes them. */
export function pageQuery(c: Context): PageRequest {
  const limit = integerQuery(c, 'limit', { min: 1, max: maxPageSize }) ?? defaultPageSize;
  const after = c.req.query('after');
  if (after !== undefined && (after === '' || after.length > 2048 || !/^[A-Za-z0-9_-]+$/.test(after))) {
    throw invalidQuery('after', 'must be a next_cursor value from a previous page');
  }
  return { limit, after: after ?? null };
}

/** An optional name-shaped query filter (`?project=`). */
export function nameQuery(c: Context, name: string): string | null {
  const raw = c.req.query(name);
  if (raw === undefined) return null;
  if (!isDnsLabel(raw, 63)) throw invalidQuery(name, 'must be a lowercase DNS label');
  return raw;
}
