/**
 * CORS: a browser may read the API's answers from a page of the stage's public origin (the
 * `publicOrigin` setting; in dev mode the request's own), and from no other. Same-origin pages need
 * none of it. A request from any other origin gets no `Access-Control-*` header at all, and its
 * preflight is not answered (a 405 or 404 like any OPTIONS), so the browser refuses the call.
 * Credentials are not allowed cross-origin: the session cookie belongs to the console's own pages,
 * and a script elsewhere sends a bearer token.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../env.ts';
import { type AuthDeps, expectedOrigin } from './auth.ts';

/** Every header a request of the contract reads besides the simple ones. */
const requestHeaders = ['authorization', 'content-type', 'idempotency-key', 'x-csrf-token', 'x-request-id'];
/** Every answer header a script may need: where a create went, when to retry, which request it was. */
const answerHeaders = ['location', 'retry-after', 'x-request-id', 'idempotent-replayed', 'www-authenticate'];

export function crossOrigin(deps: AuthDeps): MiddlewareHandler<AppEnv> {
  const allowed = cors({
    origin: (origin) => origin,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: requestHeaders,
    exposeHeaders: answerHeaders,
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && origin === expectedOrigin(deps, c)) return allowed(c, next);
    await next();
    // The public origin's answer carries CORS headers this one lacks: a cache must tell them apart.
    c.header('vary', 'Origin', { append: true });
  };
}
