import { ErrorCode, isDnsLabel, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import type { QueryParam } from '../registry.ts';

export const pageParams: QueryParam[] = [
  {
    name: 'limit',
    description: 'Page size (default 50, max 200).',
    schema: { type: 'integer', minimum: 1, maximum: 200 },
  },
  { name: 'after', description: "The previous page's next_cursor.", schema: { type: 'string' } },
];

/** A path name or id that cannot exist (not a DNS label of the right length) is simply not found. */
export function pathName(c: Context, param: string, what: string, maxLength = 63): string {
  const value = c.req.param(param) ?? '';
  if (!isDnsLabel(value, maxLength))
    throw new ProblemError(ErrorCode.NotFound, `${what} "${value}" not found`);
  return value;
}

export const compositionId = (c: Context) => pathName(c, 'id', 'composition', 40);
export const projectName = (c: Context) => pathName(c, 'project', 'project');
