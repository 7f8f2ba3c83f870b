/**
 * Documents the API links to from its own answers: a problem's `type` is `/docs/errors.md#<code>`,
 * resolved against the request's URL, so it must answer here rather than 404.
 */
import { errorsDocument } from '@svc/console';
import type { Hono } from 'hono';
import type { AppEnv } from './env.ts';

/** A static page: no script, no form, never framed; the same for everyone, so cacheable. */
const policy =
  "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'";

export function docsRoutes(app: Hono<AppEnv>): void {
  let page: Promise<string> | undefined;
  app.get('/docs/errors.md', async (c) => {
    page ??= errorsDocument();
    c.header('content-security-policy', policy);
    c.header('x-frame-options', 'DENY');
    c.header('cache-control', 'public, max-age=3600');
    return c.html(await page);
  });
}
