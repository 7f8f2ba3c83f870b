/**
 * What an operation of the service is: its method and path, who may call it, the schemas of what it
 * takes and answers, and the problems it may answer. Each is declared once, under `operations/`,
 * keyed by its operationId; the API binds a handler to each, and the OpenAPI document and the typed
 * client (`@svc/client`) are derived from the same declarations.
 */
import type { Auth, ErrorCode } from '@svc/core';
import type * as v from 'valibot';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * A path segment's rule. A value it refuses cannot name anything that exists, so the API answers
 * 404 (`composition "X" not found`) and a client refuses to send it.
 */
export interface PathParam {
  readonly schema: v.GenericSchema<string, string>;
  /** What the segment names, for the 404's detail. */
  readonly what: string;
  /** Said after the 404's detail when the rule is not obvious. */
  readonly hint?: string;
}

/** A request header the operation reads, optional like every one of them. */
interface HeaderParam {
  readonly schema: v.GenericSchema<string, string>;
  readonly description: string;
  /** The 400 a value the schema refuses answers. */
  readonly invalid: ErrorCode;
}

/**
 * The query string: an object of string parameters, typed on the way out (`limit` → a number).
 * Unknown parameters are ignored; a known one with a bad value is a 400 `invalid_query` naming it.
 */
export type QuerySchema = v.ObjectSchema<v.ObjectEntries, undefined>;

/** One documented answer of an operation. */
export interface Answer {
  readonly description: string;
  /** A JSON body of this shape; none (204, a bare 200) when absent. */
  readonly json?: v.GenericSchema;
  /** An HTML page (a sign-in page, its retry, a message). */
  readonly html?: true;
  /** A redirect: where to, in `Location`. */
  readonly redirect?: true;
}

interface Declared {
  readonly method: Method;
  /** OpenAPI-style, with `{param}` placeholders. */
  readonly path: string;
  readonly summary: string;
  readonly tag: string;
  readonly query?: QuerySchema;
  /** Answers by status: for a /v1 operation its successes (its problems come from `errors`). */
  readonly responses: Readonly<Record<number, Answer>>;
  /**
   * Problem codes its use case answers beyond the ones its kind answers anyway (`problems.ts`
   * derives those; a contract test refuses them here).
   */
  readonly errors?: readonly ErrorCode[];
}

/** An operation under `/v1`: a bearer token or a browser session, and a permission. */
export interface ApiOperation extends Declared {
  /**
   * What the caller needs. Installation permissions and project permissions of `{project}` paths
   * are checked before the handler; the rest (an object's project, known once it is read; a
   * publisher's repository, named in the body) by the core use case the handler calls.
   */
  readonly permission: Auth.Permission;
  /** One rule per `{param}` of the path. */
  readonly params?: Readonly<Record<string, PathParam>>;
  readonly headers?: Readonly<Record<string, HeaderParam>>;
  /** A JSON body of this shape (any other media type is a 415). */
  readonly body?: v.GenericSchema;
  /** The body may be left out (or be `null`): it then reads as `{}`. */
  readonly bodyOptional?: true;
  /**
   * The body is what the operation judges (a dry-run validation answers its problems as data, an
   * apply as a 422 with the catalog's problem codes): clients send it as given, unchecked.
   */
  readonly judgesBody?: true;
}

/** An operation outside `/v1` that takes no bearer token: open, or proven by what it carries. */
export interface OpenOperation extends Declared {
  /** What the caller proves instead of a bearer token. */
  readonly proof: string;
  /** Answered 404 `not_found` by installations without browser sign-in (dev, token, shared-token, anonymous). */
  readonly signInOnly?: true;
  /** An `application/x-www-form-urlencoded` body of this shape (other media types: 415). */
  readonly form?: v.GenericSchema;
  /** The form may be left out (any other body is then ignored, not refused). */
  readonly formOptional?: true;
}

export type Operation = ApiOperation | OpenOperation;

export type OperationTable = Readonly<Record<string, Operation>>;

export function isOpen(operation: Operation): operation is OpenOperation {
  return 'proof' in operation;
}

/** `{id}` and the like, in the order the path names them. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/\{([a-z_]+)\}/g)].map((match) => match[1] as string);
}

type SuccessStatus = 200 | 201 | 202 | 204;

type Schema = v.GenericSchema;

/** The typed values of a query: optional where the parameter is. */
type QueryValues<Q extends Schema> = {
  [K in keyof v.InferInput<Q>]: K extends keyof v.InferOutput<Q> ? v.InferOutput<Q>[K] : never;
};

type PathPart<O> = O extends { params: infer P } ? { path: { readonly [K in keyof P]: string } } : unknown;
type QueryPart<O> = O extends { query: infer Q extends Schema }
  ? object extends QueryValues<Q>
    ? { query?: Partial<QueryValues<Q>> }
    : { query: QueryValues<Q> }
  : unknown;
type BodyPart<O> = O extends { body: infer B extends Schema }
  ? O extends { judgesBody: true }
    ? { body: unknown }
    : O extends { bodyOptional: true }
      ? { body?: v.InferInput<B> }
      : { body: v.InferInput<B> }
  : O extends { form: infer F extends Schema }
    ? O extends { formOptional: true }
      ? { form?: v.InferInput<F> }
      : { form: v.InferInput<F> }
    : unknown;
type HeaderPart<O> = O extends { headers: infer H }
  ? { headers?: { readonly [K in keyof H]?: string | undefined } }
  : unknown;

/** What a call of the operation takes: `path`, `query`, `body` or `form` and `headers`, as it has them. */
export type Input<O> = PathPart<O> & QueryPart<O> & BodyPart<O> & HeaderPart<O>;

type BodyOf<A> = A extends { json: infer J extends Schema }
  ? v.InferOutput<J>
  : A extends { html: true }
    ? string
    : null;

/** Any documented answer, by status. */
export type Reply<O extends Operation> = {
  [S in keyof O['responses'] & number]: {
    status: S;
    headers: Readonly<Record<string, string>>;
    body: BodyOf<O['responses'][S]>;
  };
}[keyof O['responses'] & number];

/** The body of a successful answer. */
export type Result<O extends Operation> = Extract<Reply<O>, { status: SuccessStatus }>['body'];

/** The query as a handler gets it, parsed and typed. */
export type ParsedQuery<O> = O extends { query: infer Q extends Schema }
  ? v.InferOutput<Q>
  : Record<never, never>;

/** Any JSON value: what a body an operation judges itself may be. */
type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** The body as a handler gets it: parsed by its schema, or as sent when the operation judges it. */
export type ParsedBody<O> = O extends { body: infer B extends Schema }
  ? O extends { judgesBody: true }
    ? JsonValue
    : v.InferOutput<B>
  : undefined;

/** The declared headers a request carried, as a handler gets them, checked. */
export type ParsedHeaders<O> = O extends { headers: infer H }
  ? { readonly [K in keyof H]?: string }
  : Record<never, never>;

/** The path parameters as a handler gets them, checked. */
export type ParsedPath<O> = O extends { params: infer P }
  ? { readonly [K in keyof P]: string }
  : Record<never, never>;
