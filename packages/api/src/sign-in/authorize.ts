/**
 * `/auth/authorize`: the CLI's authorization request (RFC 6749 §4.1 with PKCE, RFC 8252 loopback
 * redirect). A signed-in browser is asked first — a one-click consent naming the client and the
 * port — and only its CSRF-checked answer sends a code; "Cancel" (or a sign-in that failed in the
 * browser) sends `access_denied`, so the CLI stops waiting at once instead of timing out.
 */
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import { liveSession, requireCsrf, signInDeps } from '../middleware/auth.ts';
import { type AuthServerDeps, pageHeaders } from './pages.ts';

const stateShape = /^[\x21-\x7e]{8,512}$/;
const challengeShape = /^[A-Za-z0-9_-]{43}$/;
const requestFields = [
  'response_type',
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
] as const;

/** Why the browser side ended without a code, as the CLI prints it: fixed texts, nothing echoed. */
export const CancelReason = {
  cancelled: 'the sign-in was cancelled in the browser',
  denied: 'the person declined the sign-in in the browser',
  refused: 'the identity provider’s answer was refused',
  disabled: 'this user may not sign in',
  unusable: 'the identity provider gave no usable identity',
} as const;
export type CancelReason = keyof typeof CancelReason;

/** The authorization request after `returnTo`'s sign-in fails in the browser: tells the CLI why. */
export function cancelledAuthorization(returnTo: string, reason: CancelReason): string | null {
  const url = new URL(returnTo, 'http://service.invalid');
  if (url.pathname !== '/auth/authorize') return null;
  url.searchParams.set('cancel', reason);
  return url.pathname + url.search;
}

type Request = Record<(typeof requestFields)[number], string>;

type Checked =
  | { ok: true; request: Request }
  /** Never redirect to an unverified address (RFC 6749 §4.1.2.1): tell the person instead. */
  | { ok: false; redirect: false }
  | { ok: false; redirect: true; error: string; description: string };

function check(read: (name: string) => string): Checked {
  const request = Object.fromEntries(requestFields.map((name) => [name, read(name)])) as Request;
  if (request.client_id !== Auth.cliClientId || !Auth.isLoopbackRedirect(request.redirect_uri)) {
    return { ok: false, redirect: false };
  }
  if (!stateShape.test(request.state)) {
    return { ok: false, redirect: true, error: 'invalid_request', description: 'state is required' };
  }
  if (request.response_type !== 'code') {
    return {
      ok: false,
      redirect: true,
      error: 'unsupported_response_type',
      description: 'response_type must be code',
    };
  }
  if (request.code_challenge_method !== 'S256' || !challengeShape.test(request.code_challenge)) {
    return {
      ok: false,
      redirect: true,
      error: 'invalid_request',
      description: 'PKCE is required: code_challenge (S256) and code_challenge_method=S256',
    };
  }
  return { ok: true, request };
}

function back(c: Context, redirectUri: string, params: Record<string, string>) {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return c.redirect(url.href, 303);
}

async function invalidClient(c: Context, deps: AuthServerDeps) {
  return c.html(
    await deps.pages.message(
      'Invalid sign-in request',
      `client_id must be ${Auth.cliClientId} and redirect_uri http://127.0.0.1:<port>/… or http://[::1]:<port>/….`,
    ),
    400,
  );
}

async function consentPage(c: Context, deps: AuthServerDeps, request: Request) {
  const current = await liveSession(deps, c);
  if (!current) {
    const here = new URL(c.req.url);
    return c.redirect(`/auth/login?return_to=${encodeURIComponent(here.pathname + here.search)}`, 303);
  }
  const identity = await Auth.sessionIdentity(signInDeps(deps), current.secret);
  if (!identity) return back(c, request.redirect_uri, denial(request, 'disabled'));
  pageHeaders(c, new URL(request.redirect_uri).origin);
  const roles = identity.grants.map((g) => `${g.role} on ${g.project}`).join(', ') || 'no grants';
  return c.html(
    await deps.pages.consent({
      subject: identity.subject,
      roles,
      redirectUri: request.redirect_uri,
      request,
      csrfToken: Auth.csrfTokenOf(current.secret),
    }),
  );
}

function denial(request: Request, reason: CancelReason): Record<string, string> {
  return { error: 'access_denied', error_description: CancelReason[reason], state: request.state };
}

export async function authorizeRequest(c: Context, deps: AuthServerDeps) {
  pageHeaders(c);
  const checked = check((name) => c.req.query(name) ?? '');
  if (!checked.ok) {
    return checked.redirect
      ? back(c, c.req.query('redirect_uri') ?? '', {
          error: checked.error,
          error_description: checked.description,
          ...(stateShape.test(c.req.query('state') ?? '') ? { state: c.req.query('state') ?? '' } : {}),
        })
      : invalidClient(c, deps);
  }
  const cancel = c.req.query('cancel');
  if (cancel !== undefined) {
    const reason: CancelReason = Object.hasOwn(CancelReason, cancel) ? (cancel as CancelReason) : 'cancelled';
    return back(c, checked.request.redirect_uri, denial(checked.request, reason));
  }
  return consentPage(c, deps, checked.request);
}

/** The consent's answer: a code for "Allow", `access_denied` for "Cancel"; CSRF-checked either way. */
export async function authorizeDecision(c: Context, deps: AuthServerDeps, fields: Record<string, string>) {
  pageHeaders(c);
  const checked = check((name) => fields[name] ?? '');
  if (!checked.ok) return invalidClient(c, deps);
  const { request } = checked;
  const current = await liveSession(deps, c);
  if (!current) {
    return c.html(
      await deps.pages.message('Sign-in expired', 'Your browser session ended; run svc auth login again.'),
      400,
    );
  }
  try {
    requireCsrf(deps, c, current.secret, fields.csrf_token);
  } catch (error) {
    if (!(error instanceof ProblemError) || error.code !== ErrorCode.CsrfRejected) throw error;
    return c.html(
      await deps.pages.message('Sign-in refused', 'This answer did not come from this service’s own page.'),
      403,
    );
  }
  if (fields.decision !== 'allow') return back(c, request.redirect_uri, denial(request, 'denied'));
  const code = await Auth.issueCode(signInDeps(deps), current.session, {
    client_id: Auth.cliClientId,
    redirect_uri: request.redirect_uri,
    code_challenge: request.code_challenge,
  });
  return back(c, request.redirect_uri, { code, state: request.state });
}
