/**
 * The sign-in pages a browser walks through: `/auth/login` (the password form, or the hand-off to
 * the identity provider), `/auth/callback` (back from it), `/auth/logout`. Every failure a person
 * can meet here is a page in the console's layout with a way on, never raw JSON; when the sign-in
 * was the CLI's, a failure that ends it tells the CLI too.
 */
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../env.ts';
import {
  claimGrants,
  expectedOrigin,
  liveSession,
  requireCsrf,
  sessionCookie,
  sessionCookieOptions,
  signInDeps,
} from '../middleware/auth.ts';
import { type CancelReason, cancelledAuthorization } from './authorize.ts';
import { clientAddress } from './client-address.ts';
import type { IdentityProvider } from './oidc.ts';
import { type AuthServerDeps, pageHeaders } from './pages.ts';

const signInCookie = 'svc_signin';
/** A browser its person signed in on with their password: strangers' guesses at the name do not slow it. */
const deviceCookie = 'svc_device';

function signedIn(c: Context, secret: string, returnTo: string, device?: string) {
  setCookie(c, sessionCookie, secret, {
    ...sessionCookieOptions,
    maxAge: Auth.Lifetime.sessionAbsoluteSeconds,
  });
  if (device) setCookie(c, deviceCookie, device, { ...sessionCookieOptions, maxAge: Auth.ownDeviceSeconds });
  return c.redirect(returnTo, 303);
}

/** The password form again, with what went wrong; the name typed stays. */
async function retry(
  c: Context,
  deps: AuthServerDeps,
  input: { returnTo: string; username: string; error: string },
  status: 401 | 403 | 429,
) {
  return c.html(await deps.pages.signIn(input), status);
}

async function startAtProvider(
  c: Context,
  deps: AuthServerDeps,
  provider: IdentityProvider,
  returnTo: string,
) {
  const secret = Auth.newSecret(Auth.SecretPrefix.SignIn);
  const pending = {
    state: Auth.newSecret(Auth.SecretPrefix.SignIn),
    nonce: Auth.newSecret(Auth.SecretPrefix.SignIn),
    code_verifier: Auth.newSecret(Auth.SecretPrefix.SignIn).slice(Auth.SecretPrefix.SignIn.length),
    return_to: returnTo,
    expires_at: new Date(deps.clock.now().getTime() + Auth.Lifetime.signInSeconds * 1000).toISOString(),
  };
  await deps.signIns.putPending(Auth.hashSecret(secret), pending);
  setCookie(c, signInCookie, secret, { ...sessionCookieOptions, maxAge: Auth.Lifetime.signInSeconds });
  const url = await provider.authorizationUrl({
    redirectUri: `${expectedOrigin(deps, c)}/auth/callback`,
    state: pending.state,
    nonce: pending.nonce,
    codeVerifier: pending.code_verifier,
  });
  return c.redirect(url.href, 302);
}

export async function loginPage(c: Context, deps: AuthServerDeps) {
  const returnTo = Auth.safeReturnPath(c.req.query('return_to'));
  pageHeaders(c);
  if (deps.settings.mode === Auth.AuthMode.Oidc && deps.provider) {
    const throttle = Auth.signInStartThrottle(deps.settings.limits, clientAddress(c));
    try {
      await Auth.enforceRateLimit(deps.rateLimiter, throttle, deps.clock.now());
    } catch (error) {
      return c.html(await deps.pages.message('Too many sign-ins', rateLimitMessage(c, error)), 429);
    }
    return startAtProvider(c, deps, deps.provider, returnTo);
  }
  return c.html(await deps.pages.signIn({ returnTo, error: null, username: '' }));
}

const wrongPassword = 'Unknown user name or wrong password.';

/** A `rate_limited` refusal as the page says it (with its `Retry-After`); anything else rethrown. */
function rateLimitMessage(c: Context, error: unknown): string {
  if (!(error instanceof ProblemError) || error.code !== ErrorCode.RateLimited) throw error;
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return error.message;
}

export async function passwordSignIn(c: Context, deps: AuthServerDeps, fields: Record<string, string>) {
  pageHeaders(c);
  const typed = (fields.username ?? '').trim().toLowerCase();
  const password = fields.password ?? '';
  const returnTo = Auth.safeReturnPath(fields.return_to);
  const wellFormed = Auth.usernameShape.test(typed) && password.length <= Auth.maxPasswordLength;
  const username = wellFormed ? typed : '';
  if (c.req.header('origin') !== expectedOrigin(deps, c)) {
    const error =
      'Your browser did not say this form came from this service’s own page, so it was not used. Sign in again here.';
    return retry(c, deps, { returnTo, username, error }, 403);
  }
  if (!wellFormed) return retry(c, deps, { returnTo, username, error: wrongPassword }, 401);
  const now = deps.clock.now();
  const ownDevice = await Auth.isOwnDevice(deps, getCookie(c, deviceCookie, 'host'), username);
  const throttles = Auth.failedSignInThrottles(deps.settings.limits, clientAddress(c), username, {
    ownDevice,
  });
  try {
    await Auth.requireUnderLimits(deps.rateLimiter, throttles, now);
  } catch (error) {
    return retry(c, deps, { returnTo, username, error: rateLimitMessage(c, error) }, 429);
  }
  const user = await Auth.checkPassword(deps, username, password);
  if (!user) {
    await Auth.countHits(deps.rateLimiter, throttles, now);
    return retry(c, deps, { returnTo, username, error: wrongPassword }, 401);
  }
  const { secret } = await Auth.startSession(signInDeps(deps), user, null);
  return signedIn(c, secret, returnTo, Auth.deviceCookieValue(deps.cursors, user));
}

/** A failed provider sign-in: back to the CLI with the reason when it was the CLI's, else a page. */
async function callbackFailed(
  c: Context,
  deps: AuthServerDeps,
  returnTo: string,
  reason: CancelReason,
  page: { title: string; message: string; status: 400 | 403 },
) {
  const toCli = cancelledAuthorization(returnTo, reason);
  if (toCli) return c.redirect(toCli, 303);
  return c.html(await deps.pages.message(page.title, page.message), page.status);
}

async function claimsFrom(c: Context<AppEnv>, deps: AuthServerDeps, pending: Auth.PendingSignIn) {
  try {
    return await deps.provider?.claims(new URL(c.req.url), {
      state: pending.state,
      nonce: pending.nonce,
      codeVerifier: pending.code_verifier,
    });
  } catch (error) {
    c.get('log')({ level: 'warn', msg: 'oidc sign-in refused', error: String(error) });
    return undefined;
  }
}

export async function providerCallback(c: Context, deps: AuthServerDeps) {
  pageHeaders(c);
  const { settings } = deps;
  const secret = getCookie(c, signInCookie, 'host');
  deleteCookie(c, signInCookie, sessionCookieOptions);
  const pending = secret ? await deps.signIns.takePending(Auth.hashSecret(secret), deps.clock.now()) : null;
  if (!pending || !deps.provider || settings.mode !== Auth.AuthMode.Oidc) {
    return c.html(
      await deps.pages.message('Sign-in expired', 'This sign-in is unknown or too old; start again.'),
      400,
    );
  }
  const answer = await claimsFrom(c, deps, pending);
  if (!answer) {
    return callbackFailed(c, deps, pending.return_to, 'refused', {
      title: 'Sign-in failed',
      message: 'The identity provider’s answer was refused; start again.',
      status: 400,
    });
  }
  const { claims, tokens } = answer;
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) {
    return callbackFailed(c, deps, pending.return_to, 'unusable', {
      title: 'Sign-in failed',
      message: 'The identity provider named nobody (no usable sub claim).',
      status: 400,
    });
  }
  const person = await Auth.personFromProvider(
    deps,
    { issuer: settings.oidc.issuer, sub },
    claims[settings.oidc.username_claim],
  );
  if (!person) {
    return callbackFailed(c, deps, pending.return_to, 'disabled', {
      title: 'Sign-in refused',
      message: 'This user is disabled.',
      status: 403,
    });
  }
  // Kept with the provider's tokens: its claims are read again from it, not frozen at sign-in.
  const providerSignIn = await Auth.startProviderSignIn(deps, {
    user_id: person.id,
    sub,
    claim_grants: claimGrants(settings, claims),
    tokens,
    lifetimeSeconds: Auth.providerSignInSeconds,
  });
  const session = await Auth.startSession(signInDeps(deps), person, providerSignIn.id);
  return signedIn(c, session.secret, pending.return_to);
}

export async function logout(c: Context, deps: AuthServerDeps, fields: Record<string, string>) {
  const current = await liveSession(deps, c);
  if (current) {
    requireCsrf(deps, c, current.secret, fields.csrf_token);
    await Auth.endSession(signInDeps(deps), current.secret);
  }
  deleteCookie(c, sessionCookie, sessionCookieOptions);
  // A sign-out form of the console names the page to land on.
  if (fields.return_to !== undefined) return c.redirect(Auth.safeReturnPath(fields.return_to), 303);
  return c.body(null, 204);
}
