/**
 * The single auth middleware in front of every `/v1` route: turns what the installation's mode
 * accepts (a bearer token, a session cookie, the shared token, or nothing) into one core Identity,
 * refuses cookie-authenticated changes without CSRF proof, and rate-limits changes per identity.
 */

import type { BrowserAuth } from '@svc/console';
import { Auth, type Clock, type Cursors, ErrorCode, ProblemError } from '@svc/core';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../env.ts';
import type { IdentityProvider } from '../sign-in/oidc.ts';

export interface AuthDeps {
  settings: Auth.AuthSettings;
  tokens: Auth.TokenStore;
  signIns: Auth.SignInStore;
  users: Auth.UserStore;
  passwords: Auth.PasswordHashing;
  rateLimiter: Auth.RateLimiter;
  clock: Clock;
  /** Seals the device cookie of a browser its person signed in on (sign-in limits). */
  cursors: Cursors;
  /** oidc mode's identity provider: signing in there, and asking it again for a person's claims. */
  provider: IdentityProvider | null;
}

export const sessionCookie = 'svc_session';
export const sessionCookieOptions = {
  prefix: 'host',
  path: '/',
  httpOnly: true,
  secure: true,
  sameSite: 'Lax',
} as const;
const bearer = /^Bearer\s+([\x21-\x7e]{1,4096})$/i;
const mutating = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The one answer to every refused credential, whatever its state: its detail says only what this
 * endpoint and mode accept (a sign-in only where people sign in). Why this credential was refused
 * goes in the challenge (RFC 6750 §3), which only whoever presented it receives.
 */
function unauthenticated(deps: AuthDeps, options: { cookies: boolean }, refusal: Auth.Refusal): ProblemError {
  const detail = !options.cookies
    ? 'This endpoint takes a bearer token only: send Authorization: Bearer <token>; a browser session does not reach it.'
    : Auth.signInModes.includes(deps.settings.mode)
      ? 'Send Authorization: Bearer <token>, or sign in (svc auth login).'
      : 'Send Authorization: Bearer <token> (svc reads it from SVC_API_TOKEN); this installation has no sign-in.';
  return new ProblemError(ErrorCode.Unauthenticated, detail, {
    headers: { 'www-authenticate': Auth.bearerChallenge(refusal) },
  });
}

export function signInDeps(deps: AuthDeps): Auth.SignInDeps {
  const { settings } = deps;
  const provider =
    settings.mode === Auth.AuthMode.Oidc && deps.provider
      ? { port: deps.provider, grantsOf: (claims: Record<string, unknown>) => claimGrants(settings, claims) }
      : null;
  return { signIns: deps.signIns, users: deps.users, clock: deps.clock, mode: settings.mode, provider };
}

/** The grants the provider's claims give, by the installation's mapping (its groups claim). */
export function claimGrants(
  settings: Extract<Auth.AuthSettings, { mode: 'oidc' }>,
  claims: Record<string, unknown>,
): Auth.Grant[] {
  return Auth.grantsFromClaims(claims, {
    claim: settings.oidc.grants_claim,
    values: settings.oidc.claim_grants,
    default_grants: settings.oidc.default_grants,
  });
}

/** The browser's session (and its secret) when its cookie names a live one. */
export async function liveSession(
  deps: AuthDeps,
  c: Context,
): Promise<{ session: Auth.Session; secret: string } | null> {
  const secret = getCookie(c, sessionCookie, 'host');
  const session = secret ? await Auth.liveSession(signInDeps(deps), secret) : null;
  return session && secret ? { session, secret } : null;
}

/**
 * The origin browsers must send with a cookie-authenticated or console change: the configured
 * public origin, never one derived from `Host` (which a DNS-rebinding page controls); dev mode,
 * which answers loopback host names only, takes the request's.
 */
export function expectedOrigin(deps: AuthDeps, c: Context): string {
  return deps.settings.mode === Auth.AuthMode.Dev ? new URL(c.req.url).origin : deps.settings.publicOrigin;
}

function requireSameOrigin(deps: AuthDeps, c: Context): void {
  const origin = c.req.header('origin');
  if (!origin || origin !== expectedOrigin(deps, c)) {
    throw new ProblemError(
      ErrorCode.CsrfRejected,
      'A signed-in browser change needs a same-origin Origin header.',
    );
  }
}

/** A cookie-authenticated change must come from our own pages: same-origin `Origin` and the session's CSRF token. */
export function requireCsrf(deps: AuthDeps, c: Context, sessionSecret: string, formToken?: string): void {
  requireSameOrigin(deps, c);
  const token = c.req.header('x-csrf-token') ?? formToken;
  if (!token || !Auth.sameSecret(token, Auth.csrfTokenOf(sessionSecret))) {
    throw new ProblemError(
      ErrorCode.CsrfRejected,
      'A signed-in browser change needs X-CSRF-Token set to the csrf_token of GET /auth/config.',
    );
  }
}

/** Why a sign-in's credential gives no identity: ended, or unknown and expired alike. */
async function signInRefusal(deps: AuthDeps, secret: string): Promise<Auth.Refusal> {
  return (await Auth.signInWasEnded(signInDeps(deps), secret))
    ? Auth.Refusal.SignInEnded
    : Auth.Refusal.Invalid;
}

/** The identity a bearer token gives, or why it gives none. */
async function bearerIdentity(deps: AuthDeps, token: string): Promise<Auth.Identity | Auth.Refusal> {
  const { settings } = deps;
  if (settings.mode === Auth.AuthMode.SharedToken && Auth.sameSecret(token, settings.sharedToken)) {
    return Auth.sharedIdentity(settings.grants);
  }
  if (token.startsWith(Auth.SecretPrefix.MachineToken)) {
    const machine = await deps.tokens.find(token);
    const standing = machine ? Auth.tokenStanding(machine, deps.clock.now()) : null;
    if (machine && standing === Auth.TokenStanding.Live) return Auth.machineIdentity(machine);
    return standing === Auth.TokenStanding.Revoked ? Auth.Refusal.Revoked : Auth.Refusal.Invalid;
  }
  if (Auth.signInModes.includes(settings.mode) && token.startsWith(Auth.SecretPrefix.AccessToken)) {
    const identity = await Auth.accessTokenIdentity(signInDeps(deps), token);
    return identity ?? (await signInRefusal(deps, token));
  }
  return Auth.Refusal.Invalid;
}

/**
 * Who the request is. `cookies: false` (the MCP endpoint) accepts no session cookie: a browser's
 * ambient credential then authorizes nothing there.
 */
export async function identify(
  deps: AuthDeps,
  c: Context<AppEnv>,
  options: { cookies: boolean } = { cookies: true },
): Promise<Auth.Identity> {
  const { settings } = deps;
  if (settings.mode === Auth.AuthMode.Dev) return Auth.devIdentity;
  if (settings.mode === Auth.AuthMode.Anonymous) return Auth.anonymousIdentity(settings.grants);
  const header = c.req.header('authorization');
  if (header !== undefined) {
    // Another scheme (Basic…) is no attempt at ours: the bare challenge (RFC 6750 §3.1).
    const token = bearer.exec(header)?.[1];
    const identity = token ? await bearerIdentity(deps, token) : Auth.Refusal.Missing;
    if (typeof identity === 'string') throw unauthenticated(deps, options, identity);
    return identity;
  }
  const cookies = options.cookies && Auth.signInModes.includes(settings.mode);
  const session = cookies ? getCookie(c, sessionCookie, 'host') : undefined;
  if (session) {
    const identity = await Auth.sessionIdentity(signInDeps(deps), session);
    if (!identity) throw unauthenticated(deps, options, await signInRefusal(deps, session));
    if (mutating.has(c.req.method)) requireCsrf(deps, c, session);
    return identity;
  }
  throw unauthenticated(deps, options, Auth.Refusal.Missing);
}

async function limitChanges(deps: AuthDeps, identity: Auth.Identity): Promise<void> {
  if (deps.settings.mode === Auth.AuthMode.Dev) return;
  await Auth.enforceRateLimit(
    deps.rateLimiter,
    {
      key: `changes\n${identity.subject}`,
      limit: deps.settings.limits.mutations_per_minute,
      windowSeconds: 60,
      what: 'changes',
    },
    deps.clock.now(),
  );
}

export function authenticate(deps: AuthDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const identity = await identify(deps, c);
    c.set('identity', identity);
    if (mutating.has(c.req.method)) await limitChanges(deps, identity);
    return next();
  };
}

/**
 * The console's browsers, identified as `/v1` identifies them: the session cookie in password and
 * oidc modes, the mode's one identity in dev and anonymous modes, nobody in bearer-only modes.
 * Their changes (form posts) pass the same CSRF and rate-limit checks as cookie-authenticated API calls.
 */
export function browserAuth(deps: AuthDeps): BrowserAuth {
  const { settings } = deps;
  const sessionSecret = (c: Context) =>
    Auth.signInModes.includes(settings.mode) ? getCookie(c, sessionCookie, 'host') : undefined;
  return {
    mode: settings.mode,
    async viewer(c) {
      if (settings.mode === Auth.AuthMode.Dev) return { identity: Auth.devIdentity, csrfToken: null };
      if (settings.mode === Auth.AuthMode.Anonymous) {
        return { identity: Auth.anonymousIdentity(settings.grants), csrfToken: null };
      }
      const secret = sessionSecret(c);
      const identity = secret ? await Auth.sessionIdentity(signInDeps(deps), secret) : null;
      return identity && secret ? { identity, csrfToken: Auth.csrfTokenOf(secret) } : null;
    },
    async guardChange(c, identity, formToken) {
      const secret = sessionSecret(c);
      if (secret) requireCsrf(deps, c, secret, formToken);
      else requireSameOrigin(deps, c);
      await limitChanges(deps, identity);
    },
  };
}
