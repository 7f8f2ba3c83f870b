/**
 * The shapes most /v1 operations take: a read of one thing, a page of a list, a change answered by
 * one status. Each declaration then says only what is its own (path, permission, summary, the
 * schemas, the problems its use case adds); the problems of its kind follow (`problems.ts`).
 */
import * as v from 'valibot';
import type { Answer, ApiOperation } from './operation.ts';
import { pageParams } from './query.ts';

type Declaration = Omit<ApiOperation, 'method' | 'responses'>;

/** A GET answering one thing: 200 with `answer`. */
export const read = <const D extends Declaration, const A extends Answer>(declaration: D, answer: A) =>
  ({ method: 'get', ...declaration, responses: { 200: answer } }) as const satisfies ApiOperation;

/**
 * A GET answering a page: the query takes `filters` (each optional), then `limit` and `after` as
 * every list does; 200 with `answer`.
 */
export function list<const D extends Omit<Declaration, 'query'>, const A extends Answer>(
  declaration: D,
  answer: A,
): ListOf<D, A, typeof pageParams>;
export function list<
  const D extends Omit<Declaration, 'query'>,
  const A extends Answer,
  const F extends v.ObjectEntries,
>(declaration: D, answer: A, filters: F): ListOf<D, A, F & typeof pageParams>;
export function list(declaration: Omit<Declaration, 'query'>, answer: Answer, filters = {}) {
  return {
    method: 'get',
    ...declaration,
    query: v.object({ ...filters, ...pageParams }),
    responses: { 200: answer },
  } as const satisfies ApiOperation;
}

type ListOf<D, A, Q extends v.ObjectEntries> = D & {
  readonly method: 'get';
  readonly query: v.ObjectSchema<Q, undefined>;
  readonly responses: { readonly 200: A };
};

/** A change with a JSON body (or none) answered by one status. */
export const write = <
  const M extends Exclude<ApiOperation['method'], 'get'>,
  const D extends Declaration,
  const S extends number,
  const A extends Answer,
>(
  method: M,
  declaration: D,
  status: S,
  answer: A,
) => ({ method, ...declaration, responses: { [status]: answer } as { [K in S]: A } }) as const;
