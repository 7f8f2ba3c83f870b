// What GitHub does around every route: authentication, rate limits, its response headers, error
// bodies, and conditional requests.

import { createHash, randomBytes } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppAuth, Credentials } from '../auth.ts';
import { DOCS, GitHubError } from '../errors.ts';
import { type RateLimits, rateLimitHeaders } from '../rate-limit.ts';
import type { RequestLog } from '../request-log.ts';
import type { Ctx, Env } from './context.ts';

export function errorResponse(error: Error, c: Ctx): Response {
  if (error instanceof GitHubError) return c.json(error.body(), error.status as 400, error.headers);
  process.stderr.write(`local-forge: ${c.req.method} ${c.req.path} failed: ${String(error)}\n`);
  return c.json({ message: 'Server Error', documentation_url: DOCS, status: '500' }, 500);
}

function subjectOf(credentials: Credentials, address: string): { key: string; describe: string } {
  if (credentials.kind === 'installation') {
    const id = credentials.installation.id;
    return { key: `installation:${id}`, describe: `installation ID ${id}` };
  }
  if (credentials.kind === 'app') return { key: 'app', describe: 'the app' };
  return { key: `address:${address}`, describe: address };
}

/** Authentication, rate limits and the headers GitHub puts on every answer. A 304 does not count. */
export function gitHubFront(
  auth: AppAuth,
  rateLimits: RateLimits,
  requests: RequestLog,
): MiddlewareHandler<Env> {
  return async (c, next) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    let subject = subjectOf({ kind: 'none' }, c.req.header('x-forwarded-for') ?? '127.0.0.1');
    try {
      const credentials = auth.authenticate(c.req.header('authorization'));
      c.set('credentials', credentials);
      subject = subjectOf(credentials, subject.describe);
      rateLimits.admit(subject.key, subject.describe);
      await next();
    } catch (error) {
      c.res = errorResponse(error as Error, c);
    }
    if (c.res.status !== 304) rateLimits.count(subject.key);
    requests.record(c.req.method, c.req.path, c.res.status);
    const fixed = c.res.headers.get('x-ratelimit-remaining') !== null;
    const headers: Record<string, string> = {
      ...(fixed ? {} : rateLimitHeaders(rateLimits.snapshot(subject.key))),
      'x-github-request-id': requestId,
      'x-github-api-version-selected': '2022-11-28',
      'x-github-media-type': 'github.v3; format=json',
      vary: 'Accept, Authorization, Cookie, X-GitHub-OTP',
    };
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
  };
}

/** Every successful GET carries an ETag; a matching If-None-Match gets 304. */
export const conditionalRequests: MiddlewareHandler<Env> = async (c, next) => {
  await next();
  if (c.req.method !== 'GET' || c.res.status !== 200) return;
  const etag = `W/"${createHash('sha256')
    .update(await c.res.clone().text())
    .digest('hex')
    .slice(0, 40)}"`;
  c.header('ETag', etag);
  c.header('Cache-Control', 'private, max-age=60, s-maxage=60');
  const ifNoneMatch = c.req.header('if-none-match');
  if (ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    c.res = new Response(null, { status: 304, headers: c.res.headers });
  }
};
