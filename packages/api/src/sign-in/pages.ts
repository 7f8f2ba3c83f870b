/**
 * What every page of a sign-in answers with: the console's layout (no script), never cached or
 * framed, and a referrer policy that keeps the origin, so the browser's form posts carry the
 * `Origin` our CSRF check wants (`no-referrer` makes Chromium send `Origin: null`).
 */
import type { AuthDocuments } from '@svc/console';
import type { Context } from 'hono';
import type { AuthDeps } from '../middleware/auth.ts';

/** What the sign-in flows need: the auth edge's stores and settings, the provider, the pages. */
export interface AuthServerDeps extends AuthDeps {
  pages: AuthDocuments;
}

const policy = (formTargets: string) =>
  [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self'",
    `form-action ${formTargets}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

export function noStore(c: Context): void {
  c.header('cache-control', 'no-store');
  c.header('pragma', 'no-cache');
}

/**
 * `formTarget`: an origin besides our own a form on the page ends at through redirects (the CLI's
 * loopback listener after the consent), since browsers apply `form-action` to the whole chain.
 */
export function pageHeaders(c: Context, formTarget?: string): void {
  noStore(c);
  c.header('content-security-policy', policy(formTarget ? `'self' ${formTarget}` : "'self'"));
  c.header('x-frame-options', 'DENY');
  c.header('referrer-policy', 'same-origin');
}
