/**
 * The one error a client call throws: a problem (RFC 9457, the server's shape), the server's own or
 * one the client found itself (`status: null`), with the request it concerns.
 */
import type { FieldError, ProblemBody } from '@svc/core';
import type { Challenge } from './challenge.ts';

/** Codes of the problems the client finds itself; each is described in docs/ci.md. */
export const ClientCode = {
  /** A call's input broke the operation's schema: nothing was sent. */
  InvalidInput: 'invalid_input',
  /** The answer was neither a documented one nor a problem. */
  UnexpectedResponse: 'unexpected_response',
  /** No answer: the connection failed. */
  ApiUnreachable: 'api_unreachable',
  /** No answer in time. */
  ApiTimeout: 'api_timeout',
  /** A credential would have gone over plain http to another machine: nothing was sent. */
  InsecureTransport: 'insecure_transport',
} as const;
export type ClientCode = (typeof ClientCode)[keyof typeof ClientCode];

const titles: Record<ClientCode, string> = {
  invalid_input: 'Invalid input',
  unexpected_response: 'Unexpected response',
  api_unreachable: 'API unreachable',
  api_timeout: 'API did not answer in time',
  insecure_transport: 'Credential would travel unencrypted',
};

/**
 * How a program of the service says a problem it found itself (`status: null`), in the server's
 * shape: each code with its title and its section of the program's page in docs/ — the client's
 * (ci.md), the CLI's (cli.md), the MCP tools' (mcp.md).
 */
export function problemBuilder<TCode extends string>(page: string, titles: Readonly<Record<TCode, string>>) {
  return (code: TCode, detail: string, errors: FieldError[] = []): ProblemBody => ({
    type: `/docs/${page}#${code}`,
    title: titles[code],
    status: null,
    detail,
    code,
    errors,
  });
}

export const clientProblem = problemBuilder<ClientCode>('ci.md', titles);

/** The operation and the request as sent (method and path with its parameters filled in). */
export interface RequestSummary {
  operationId: string;
  method: string;
  path: string;
}

/** Marks an ApiError whichever copy of this module made it (a bundle can carry its own). */
const apiErrorMark = Symbol.for('svc.api-error');

export class ApiError extends Error {
  override name = 'ApiError';
  readonly [apiErrorMark] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && apiErrorMark in value;
  }

  readonly problem: ProblemBody;
  readonly request: RequestSummary | null;
  /**
   * What the answer's `WWW-Authenticate` Bearer challenge said: on a 401, why the credential was
   * refused (its `error_description`), which the problem's body never says. Null without one.
   */
  readonly challenge: Challenge | null;

  constructor(
    problem: ProblemBody,
    options: { request?: RequestSummary; challenge?: Challenge | null; cause?: unknown } = {},
  ) {
    super(problem.detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.problem = problem;
    this.request = options.request ?? null;
    this.challenge = options.challenge ?? null;
  }

  /** The HTTP status the server answered; null for a problem the client found itself. */
  get status(): number | null {
    return this.problem.status;
  }

  get code(): string {
    return this.problem.code;
  }
}

/** A problem as a server answers one: a code and its status. */
export function isProblem(body: unknown): body is ProblemBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ProblemBody).code === 'string' &&
    typeof (body as ProblemBody).status === 'number'
  );
}
