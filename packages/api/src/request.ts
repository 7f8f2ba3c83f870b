import {
  bodyLimits,
  bodyProblems,
  defaultPageSize,
  ErrorCode,
  isDnsLabel,
  maxPageSize,
  type PageRequest,
  ProblemError,
  validationFailed,
} from '@svc/core';
import type { Context } from 'hono';

/**
 * The body as JSON; an empty body reads as undefined. Before any route sees it: malformed JSON is a
 * 400 naming the parse error, nesting deeper than the limit a 413, a reserved key (`__proto__`,
 * `constructor`, `prototype`) anywhere a 422 naming it.
 */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ProblemError(
      ErrorCode.MalformedJson,
      `The body is not valid JSON: ${(error as Error).message}`,
    );
  }
  const problems = bodyProblems(body);
  if (problems.tooDeep) {
    throw new ProblemError(
      ErrorCode.PayloadTooLarge,
      `The body nests arrays and objects deeper than ${bodyLimits.maxDepth} levels.`,
    );
  }
  if (problems.reserved.length) throw validationFailed(problems.reserved);
  return body;
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
