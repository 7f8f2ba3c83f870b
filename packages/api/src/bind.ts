/**
 * Binds a handler to every operation of the contract, and refuses to start with one missing (or
 * one the contract does not declare). Before a /v1 handler runs, the binding checks what the
 * contract says of the request: installation and `{project}` permissions, each path segment (a
 * value that cannot name anything is a 404), the query (a bad value is a 400 `invalid_query`
 * naming it), for an operation with a body that it is JSON (see `readJson`), each declared header
 * (a bad value is the header's own 400), then the body against its schema (a 422 naming every
 * field). The handler gets all of it typed, as the contract declares it.
 */
import {
  type ApiOperation,
  isOpen,
  type Operation,
  type OperationId,
  type Operations,
  operations,
  type ParsedBody,
  type ParsedHeaders,
  type ParsedPath,
  type ParsedQuery,
  pathParamNames,
} from '@svc/contract';
import {
  Auth,
  ErrorCode,
  type Idempotency,
  isDnsLabel,
  ProblemError,
  parseOrThrow,
  parseQueryOrThrow,
} from '@svc/core';
import type { Context, Hono } from 'hono';
import * as v from 'valibot';
import type { AppEnv } from './env.ts';
import { readJson } from './request.ts';

type Answer = Response | Promise<Response>;

/** The header that makes an operation safe to retry, as the contract declares it. */
const idempotencyHeader = 'Idempotency-Key';

type IdempotencyPart<O> = O extends { headers: { [idempotencyHeader]: unknown } }
  ? {
      /** The request as core runs it at most once per key (null without one), scoped by the operation. */
      idempotency: Idempotency.IdempotentRequest | null;
    }
  : unknown;

/** What a /v1 handler gets besides the context: the request as the contract reads it. */
type RequestParts<O> = {
  path: ParsedPath<O>;
  query: ParsedQuery<O>;
  headers: ParsedHeaders<O>;
  body: ParsedBody<O>;
} & IdempotencyPart<O>;

type Handler<O> = O extends ApiOperation
  ? (c: Context<AppEnv>, request: RequestParts<O>) => Answer
  : (c: Context<AppEnv>) => Answer;

/** Handlers for the operations `Ids` names. */
export type Handlers<Ids extends OperationId = OperationId> = { [K in Ids]: Handler<Operations[K]> };

/** Handlers for every operation of a table of the contract (`compositionOperations`…). */
export type HandlersOf<T> = Handlers<keyof T & OperationId>;

function checkedBeforeHandler(operation: ApiOperation): 'installation' | 'project' | null {
  const rule = Auth.permissionRule(operation.permission);
  if (rule.scope === 'installation') return 'installation';
  if (rule.scope === 'project' && !rule.publisher && operation.path.includes('{project}')) return 'project';
  return null;
}

/** Each segment against its rule: one that cannot name anything is simply not found. */
function pathOf(c: Context<AppEnv>, operation: ApiOperation): Record<string, string> {
  const path: Record<string, string> = {};
  for (const name of pathParamNames(operation.path)) {
    const value = c.req.param(name) ?? '';
    const rule = operation.params?.[name];
    if (rule && !v.is(rule.schema, value)) {
      const hint = rule.hint ? `: ${rule.hint}` : '';
      throw new ProblemError(ErrorCode.NotFound, `${rule.what} "${value}" not found${hint}`);
    }
    path[name] = value;
  }
  return path;
}

/** Each declared header the request carries, against its rule. */
function headersOf(c: Context<AppEnv>, operation: ApiOperation): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, rule] of Object.entries(operation.headers ?? {})) {
    const value = c.req.header(name);
    if (value === undefined) continue;
    const parsed = v.safeParse(rule.schema, value);
    if (!parsed.success) {
      throw new ProblemError(rule.invalid, `${name} ${parsed.issues[0].message}.`, {
        errors: [{ path: name, message: 'invalid value' }],
      });
    }
    headers[name] = parsed.output;
  }
  return headers;
}

/** The JSON body as sent, `{}` for an optional one left out. */
async function sentBody(c: Context<AppEnv>, operation: ApiOperation): Promise<unknown> {
  if (!operation.body) return undefined;
  const sent = await readJson(c);
  return operation.bodyOptional ? (sent ?? {}) : sent;
}

/** The body its schema reads, unless the operation judges the body itself. */
function parsedBody(operation: ApiOperation, sent: unknown): unknown {
  return operation.body && !operation.judgesBody ? parseOrThrow(operation.body, sent) : sent;
}

/** For an operation that declares the Idempotency-Key header: the key's request, scoped by the operation. */
function idempotencyOf(id: string, operation: ApiOperation, headers: Record<string, string>, body: unknown) {
  if (!operation.headers?.[idempotencyHeader]) return {};
  const key = headers[idempotencyHeader];
  return { idempotency: key === undefined ? null : { operation: id, key, payload: body } };
}

/** A handler as the binding calls it, whichever operation it serves. */
type AnyHandler = (
  c: Context<AppEnv>,
  request: Omit<RequestParts<ApiOperation>, 'body'> & {
    body: unknown;
    idempotency?: Idempotency.IdempotentRequest | null;
  },
) => Answer;

function guarded(id: string, operation: ApiOperation, handler: AnyHandler) {
  const early = checkedBeforeHandler(operation);
  return async (c: Context<AppEnv>) => {
    if (early === 'installation') Auth.authorize(c.get('identity'), operation.permission, { project: null });
    if (early === 'project') {
      const project = c.req.param('project') ?? '';
      if (isDnsLabel(project, 63)) Auth.authorize(c.get('identity'), operation.permission, { project });
    }
    const path = pathOf(c, operation);
    const query = operation.query ? parseQueryOrThrow(operation.query, c.req.query()) : {};
    const sent = await sentBody(c, operation);
    const headers = headersOf(c, operation);
    const body = parsedBody(operation, sent);
    return handler(c, { path, query, headers, body, ...idempotencyOf(id, operation, headers, sent) });
  };
}

/** Registers every operation's handler on `app`; throws, naming them, if any is missing or unknown. */
export function bindOperations(app: Hono<AppEnv>, handlers: Handlers): void {
  const declared: Record<string, Operation> = operations;
  const given: Record<string, unknown> = handlers;
  const missing = Object.keys(declared).filter((id) => typeof given[id] !== 'function');
  const unknown = Object.keys(given).filter((id) => !Object.hasOwn(declared, id));
  const problems = [
    ...(missing.length ? [`no handler for ${missing.join(', ')}`] : []),
    ...(unknown.length
      ? [`handlers for operations the contract does not declare: ${unknown.join(', ')}`]
      : []),
  ];
  if (problems.length) throw new Error(`the API cannot start: ${problems.join('; ')}`);
  for (const [id, operation] of Object.entries(declared)) {
    const handler = given[id];
    const path = operation.path.replace(/\{([a-z_]+)\}/g, ':$1');
    const run = isOpen(operation)
      ? (handler as (c: Context<AppEnv>) => Answer)
      : guarded(id, operation, handler as AnyHandler);
    app.on(operation.method.toUpperCase(), path, run);
  }
}
