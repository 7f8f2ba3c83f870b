import { ErrorCode, ProblemError } from '@svc/core';
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

const idPattern = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
const namePattern = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** A path id that cannot exist is simply not found. */
export function compositionId(c: Context): string {
  const id = c.req.param('id') ?? '';
  if (!idPattern.test(id)) throw new ProblemError(ErrorCode.NotFound, `composition "${id}" not found`);
  return id;
}

export function projectName(c: Context): string {
  const name = c.req.param('project') ?? '';
  if (!namePattern.test(name)) throw new ProblemError(ErrorCode.NotFound, `project "${name}" not found`);
  return name;
}
