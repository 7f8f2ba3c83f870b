/**
 * The one thing a tool needs from its host: a way to call the service's REST API as the agent's
 * identity. `svc mcp` passes the CLI's HTTP client (its credentials, refresh and transport rules);
 * the API's `/mcp` endpoint passes the API itself, in process, with the caller's Authorization
 * header. Either way a tool call is a REST call, so it is authorized, validated, rate limited and
 * answered exactly as the same REST call would be.
 */

import type { ProblemBody } from '@svc/core';

type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface ApiRequest {
  method: ApiMethod;
  /** Path with `/v1`, each segment already encoded. */
  path: string;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  body?: unknown;
  /** Sent as `Idempotency-Key`. */
  idempotencyKey?: string;
  /** How long this one request may take; the host's default otherwise. */
  timeoutSeconds?: number;
}

/** The 2xx body of the request; anything else throws an {@link ApiProblemError}. */
export type CallApi = (request: ApiRequest) => Promise<unknown>;

export class ApiProblemError extends Error {
  override name = 'ApiProblemError';
  readonly problem: ProblemBody;

  constructor(problem: ProblemBody, options?: { cause?: unknown }) {
    super(problem.detail, options);
    this.problem = problem;
  }
}

export function isProblem(body: unknown): body is ProblemBody {
  return (
    typeof body === 'object' &&
    body !== null &&
    typeof (body as ProblemBody).code === 'string' &&
    typeof (body as ProblemBody).detail === 'string'
  );
}

export const segment = (value: string) => encodeURIComponent(value);
