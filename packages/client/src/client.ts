/**
 * A client bound to a table of operations and a transport. `call('getComposition', { path: { id } })`
 * checks the input with the operation's own schemas (nothing is sent when it breaks one), fills in
 * and encodes the path, sends the request through the transport and answers the body, typed by the
 * contract. A problem, or an answer the operation does not document, throws an {@link ApiError}.
 *
 * This module reads operations only from the table it is given, so a program that needs a few of
 * them (the CLI's `svc version`) loads those and not the whole contract.
 */
import {
  type Input,
  isOpen,
  type Operation,
  type OperationTable,
  type Reply,
  type Result,
} from '@svc/contract/operation';
import type { FieldError } from '@svc/core';
import { parseFields } from '@svc/core/validation';
import * as v from 'valibot';
import { bearerChallenge } from './challenge.ts';
import { ApiError, ClientCode, clientProblem, isProblem, type RequestSummary } from './errors.ts';

type WireMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request as a transport sends it. */
export interface WireRequest extends RequestSummary {
  method: WireMethod;
  /** The query's parameters, as text. */
  query: Readonly<Record<string, string>>;
  headers: Readonly<Record<string, string>>;
  /** A JSON body, to serialise. */
  json?: unknown;
  /** An `application/x-www-form-urlencoded` body. */
  form?: Readonly<Record<string, string>>;
  /** Whether to send the caller's credential: false for the operations outside `/v1`. */
  credential: boolean;
  /** How long this request may take; the transport's default otherwise. */
  timeoutSeconds?: number;
}

/** An answer: a JSON body parsed, any other as text, an empty one as null. */
export interface WireAnswer {
  status: number;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  body: unknown;
}

/** Sends a request and answers whatever came back; throws only when nothing did. */
export type Transport = (request: WireRequest) => Promise<WireAnswer>;

interface CallOptions {
  timeoutSeconds?: number;
}

type Args<O> =
  object extends Input<O>
    ? [input?: Input<O>, options?: CallOptions]
    : [input: Input<O>, options?: CallOptions];

export interface Client<T extends OperationTable> {
  /** The body of the operation's successful answer; anything else throws an ApiError. */
  call<K extends keyof T & string>(operationId: K, ...args: Args<T[K]>): Promise<Result<T[K]>>;
  /** Any answer the operation documents (OAuth's refusals, a degraded health report), by status. */
  send<K extends keyof T & string>(operationId: K, ...args: Args<T[K]>): Promise<Reply<T[K]>>;
}

interface LooseInput {
  path?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, unknown>>;
  headers?: Readonly<Record<string, string | undefined>>;
  body?: unknown;
  form?: Readonly<Record<string, string | undefined>>;
}

function refused(operationId: string, errors: FieldError[]): ApiError {
  const detail = `${operationId}: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}; nothing was sent`;
  return new ApiError(clientProblem(ClientCode.InvalidInput, detail, errors));
}

/** The path with each `{param}` checked against its rule and encoded as one segment. */
function fillPath(operationId: string, operation: Operation, path: LooseInput['path']): string {
  const errors: FieldError[] = [];
  const filled = operation.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = path?.[name];
    const rule = isOpen(operation) ? undefined : operation.params?.[name];
    if (typeof value !== 'string') {
      errors.push({ path: name, message: 'is required' });
    } else if (rule && !v.is(rule.schema, value)) {
      errors.push({
        path: name,
        message: `"${value}" cannot name a ${rule.what}${rule.hint ? `: ${rule.hint}` : ''}`,
      });
    }
    return encodeURIComponent(String(value));
  });
  if (errors.length) throw refused(operationId, errors);
  return filled;
}

/** The query as text (a number as its digits, a boolean as true or false), checked as the server reads it. */
function queryText(
  operationId: string,
  operation: Operation,
  query: LooseInput['query'],
): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) text[name] = String(value);
  }
  if (operation.query) {
    const parsed = parseFields(operation.query, text);
    if (!parsed.success)
      throw refused(
        operationId,
        parsed.errors.map((e) => ({ ...e, path: e.path.slice(1) })),
      );
  }
  return text;
}

function headerText(operationId: string, operation: Operation, headers: LooseInput['headers']) {
  const text: Record<string, string> = {};
  const rules = isOpen(operation) ? {} : (operation.headers ?? {});
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const rule = rules[name];
    if (rule && !v.is(rule.schema, value))
      throw refused(operationId, [{ path: name, message: 'is not valid' }]);
    text[name] = value;
  }
  return text;
}

function checked(operationId: string, schema: v.GenericSchema, value: unknown): void {
  const parsed = parseFields(schema, value);
  if (!parsed.success) throw refused(operationId, parsed.errors);
}

/** The body as given (the wire carries what the caller wrote), once it meets the operation's schema. */
function bodyOf(
  operationId: string,
  operation: Operation,
  input: LooseInput,
): Pick<WireRequest, 'json' | 'form'> {
  if (isOpen(operation)) {
    if (!operation.form || (operation.formOptional && input.form === undefined)) return {};
    checked(operationId, operation.form, input.form);
    const form: Record<string, string> = {};
    for (const [name, value] of Object.entries(input.form ?? {})) if (value !== undefined) form[name] = value;
    return { form };
  }
  if (!operation.body || (operation.bodyOptional && input.body === undefined)) return {};
  if (!operation.judgesBody) checked(operationId, operation.body, input.body);
  return { json: input.body };
}

/** Why the answer refused the credential, where it says (a 401's challenge). */
const challengeOf = (answer: WireAnswer) => bearerChallenge(answer.headers['www-authenticate']);

function unexpected(request: WireRequest, answer: WireAnswer, got: string): ApiError {
  const problem = clientProblem(
    ClientCode.UnexpectedResponse,
    `${request.method} ${request.path} answered ${answer.status} with ${got}`,
  );
  return new ApiError({ ...problem, status: answer.status }, { request, challenge: challengeOf(answer) });
}

/** Binds the operations of `table` to `transport`. */
export function bindClient<const T extends OperationTable>(table: T, transport: Transport): Client<T> {
  async function exchange(operationId: string, input: LooseInput = {}, options: CallOptions = {}) {
    const operation = table[operationId];
    if (!operation) throw new Error(`no operation "${operationId}" in this client`);
    const request: WireRequest = {
      operationId,
      method: operation.method.toUpperCase() as WireMethod,
      path: fillPath(operationId, operation, input.path),
      query: queryText(operationId, operation, input.query),
      headers: headerText(operationId, operation, input.headers),
      ...bodyOf(operationId, operation, input),
      credential: !isOpen(operation),
      ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
    };
    const answer = await transport(request);
    const summary = { operationId, method: request.method, path: request.path };
    if (answer.status >= 400 && isProblem(answer.body))
      throw new ApiError(answer.body, { request: summary, challenge: challengeOf(answer) });
    const documented = operation.responses[answer.status];
    const success = answer.status >= 200 && answer.status < 300;
    if (!documented && !success)
      throw unexpected(request, answer, 'an answer the operation does not document');
    if (documented?.json && typeof answer.body === 'string')
      throw unexpected(request, answer, 'a body that is not JSON');
    return { request, answer };
  }

  return {
    send: async (operationId: string, input?: LooseInput, options?: CallOptions) =>
      (await exchange(operationId, input, options)).answer,
    call: async (operationId: string, input?: LooseInput, options?: CallOptions) => {
      const { request, answer } = await exchange(operationId, input, options);
      if (answer.status >= 300) throw unexpected(request, answer, 'no success');
      return answer.body;
    },
  } as unknown as Client<T>;
}
