import { DependencyUnavailableError, ErrorCode, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import type { StatusCode } from 'hono/utils/http-status';
import type { AppEnv } from './env.ts';

const problemContentType = 'application/problem+json';

/** The RFC 9457 body; `type` points at the code's entry in docs/errors.md. */
function problemBody(error: ProblemError, instance: string) {
  return {
    type: `/docs/errors.md#${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    errors: error.errors,
    instance,
  };
}

/** Through the context, so the headers the middlewares set (x-request-id) go out with it. */
export function problemResponse(c: Context<AppEnv>, error: ProblemError): Response {
  const headers = { ...error.headers, 'content-type': problemContentType };
  return c.newResponse(
    JSON.stringify(problemBody(error, c.get('requestId'))),
    error.status as StatusCode,
    headers,
  );
}

/** The one place errors become HTTP. A backing service failing is a 503; anything else unexpected is a bug: 500, no internals. */
export function onError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ProblemError) return problemResponse(c, error);
  if (error instanceof DependencyUnavailableError) {
    c.get('log')({
      level: 'warn',
      msg: 'dependency failed',
      dependency: error.dependency,
      error: error.message,
    });
    return problemResponse(
      c,
      new ProblemError(ErrorCode.DependencyUnavailable, 'A backing service did not answer; retry shortly.', {
        headers: { 'retry-after': '1' },
      }),
    );
  }
  c.get('log')({
    level: 'error',
    msg: 'unhandled error',
    method: c.req.method,
    path: c.req.path,
    error: { name: error.name, message: error.message, stack: error.stack },
  });
  return problemResponse(
    c,
    new ProblemError(ErrorCode.Internal, `Unexpected error; report request id ${c.get('requestId')}.`),
  );
}
