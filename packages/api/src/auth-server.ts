/**
 * The service as its own OAuth 2.0 authorization server for its CLI, and the sign-in pages of
 * browser sessions, outside `/v1`: `GET /auth/config`, `GET|POST /auth/login`, `GET /auth/callback`
 * (oidc), `POST /auth/logout`, `GET /auth/authorize`, `POST /auth/token`, `POST /auth/revoke`.
 */
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { type AuthDeps, expectedOrigin, requireCsrf, sessionCookie, signInDeps } from './auth.ts';
import type { IdentityProvider } from './auth-oidc.ts';
import { messagePage, signInPage } from './auth-pages.ts';
import type { AppEnv } from './env.ts';

const signInCookie = 'svc_signin';
const cookieOptions = { prefix: 'host', path: '/', httpOnly: true, secure: true, sameSite: 'Lax' } as const;
const stateShape = /^[\x21-\x7e]{8,512}$/;
const challengeShape = /^[A-Za-z0-9_-]{43}$/;

/** Said loudly wherever the mode shows (`/auth/config`, `/healthz`): these modes check no credential. */
export function authWarning(mode: Auth.AuthMode): string | null {
  if (mode === Auth.AuthMode.Anonymous) {
    return 'ANONYMOUS MODE: no credentials are checked; every caller acts with the same grants.';
  }
  if (mode === Auth.AuthMode.Dev)
    return 'DEV MODE: every caller is the Admin identity; local development only.';
  return null;
}

function noStore(c: Context) {
  c.header('cache-control', 'no-store');
  c.header('pragma', 'no-cache');
}

/** Sign-in pages: never framed (clickjacking), no script, forms post only here. */
function pageHeaders(c: Context) {
  noStore(c);
  c.header(
    'content-security-policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header('x-frame-options', 'DENY');
  c.header('referrer-policy', 'no-referrer');
}

/** Only our own paths: never an absolute or protocol-relative URL someone could send a person to. */
function safeReturnTo(value: string | undefined): string {
  return value?.startsWith('/') && !value.startsWith('//') && !value.includes('\\') ? value : '/auth/config';
}

async function form(c: Context): Promise<Record<string, string>> {
  const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new ProblemError(
      ErrorCode.UnsupportedMediaType,
      `Content-Type must be application/x-www-form-urlencoded (got ${type ?? 'none'}).`,
    );
  }
  const params = new URLSearchParams(await c.req.text());
  return Object.fromEntries([...params.keys()].map((key) => [key, params.get(key) ?? '']));
}

function oauthError(c: Context, error: string, description: string, status: 400 | 401 = 400) {
  noStore(c);
  return c.json({ error, error_description: description }, status);
}

export function authServer(app: Hono<AppEnv>, deps: AuthDeps & { provider: IdentityProvider | null }): void {
  const { settings } = deps;
  const signIn = Auth.signInModes.includes(settings.mode);
  const flows = signInDeps(deps);

  const requireSignInMode = () => {
    if (!signIn) {
      throw new ProblemError(
        ErrorCode.NotFound,
        `This installation (auth mode ${settings.mode}) has no sign-in; use a bearer token.`,
      );
    }
  };

  const liveSession = async (c: Context) => {
    const secret = getCookie(c, sessionCookie, 'host');
    const session = secret ? await Auth.liveSession(flows, secret) : null;
    return session && secret ? { session, secret } : null;
  };

  app.get('/auth/config', async (c) => {
    noStore(c);
    const current = signIn ? await liveSession(c) : null;
    const origin = expectedOrigin(deps, c);
    return c.json({
      mode: settings.mode,
      sign_in: signIn,
      machine_tokens: settings.mode !== Auth.AuthMode.Dev && settings.mode !== Auth.AuthMode.Anonymous,
      warning: authWarning(settings.mode),
      issuer: origin,
      authorization_endpoint: signIn ? `${origin}/auth/authorize` : null,
      token_endpoint: signIn ? `${origin}/auth/token` : null,
      revocation_endpoint: signIn ? `${origin}/auth/revoke` : null,
      client_id: Auth.cliClientId,
      code_challenge_methods_supported: ['S256'],
      lifetimes: {
        access_token_seconds: Auth.Lifetime.accessTokenSeconds,
        refresh_seconds: Auth.Lifetime.refreshSeconds,
        session_idle_seconds: Auth.Lifetime.sessionIdleSeconds,
        session_absolute_seconds: Auth.Lifetime.sessionAbsoluteSeconds,
      },
      session: current
        ? { subject: `user:${current.session.username}`, expires_at: current.session.expires_at }
        : null,
      csrf_token: current ? Auth.csrfTokenOf(current.secret) : null,
    });
  });

  app.get('/auth/login', async (c) => {
    requireSignInMode();
    const returnTo = safeReturnTo(c.req.query('return_to'));
    pageHeaders(c);
    if (settings.mode === Auth.AuthMode.Password || !deps.provider) {
      return c.html(signInPage({ returnTo, error: null, username: '' }));
    }
    const secret = Auth.newSecret(Auth.SecretPrefix.SignIn);
    const pending = {
      state: Auth.newSecret(Auth.SecretPrefix.SignIn),
      nonce: Auth.newSecret(Auth.SecretPrefix.SignIn),
      code_verifier: Auth.newSecret(Auth.SecretPrefix.SignIn).slice(Auth.SecretPrefix.SignIn.length),
      return_to: returnTo,
      expires_at: new Date(deps.clock.now().getTime() + Auth.Lifetime.signInSeconds * 1000).toISOString(),
    };
    await deps.signIns.putPending(Auth.hashSecret(secret), pending);
    setCookie(c, signInCookie, secret, { ...cookieOptions, maxAge: Auth.Lifetime.signInSeconds });
    const url = await deps.provider.authorizationUrl({
      redirectUri: `${expectedOrigin(deps, c)}/auth/callback`,
      state: pending.state,
      nonce: pending.nonce,
      codeVerifier: pending.code_verifier,
    });
    return c.redirect(url.href, 302);
  });

  app.post('/auth/login', async (c) => {
    requireSignInMode();
    if (settings.mode !== Auth.AuthMode.Password) {
      throw new ProblemError(ErrorCode.NotFound, 'This installation signs in through its identity provider.');
    }
    const fields = await form(c);
    if (c.req.header('origin') !== expectedOrigin(deps, c)) {
      throw new ProblemError(
        ErrorCode.CsrfRejected,
        'Sign in from this service’s own page (same-origin Origin).',
      );
    }
    const username = (fields.username ?? '').trim().toLowerCase();
    const returnTo = safeReturnTo(fields.return_to);
    pageHeaders(c);
    await Auth.enforceRateLimit(
      deps.rateLimiter,
      {
        key: `sign-in\n${username}`,
        limit: settings.limits.sign_ins_per_5_minutes,
        windowSeconds: 300,
        what: 'sign-in attempts for this user name',
      },
      deps.clock.now(),
    );
    const user = await Auth.checkPassword(deps.users, username, fields.password ?? '');
    if (!user) {
      return c.html(signInPage({ returnTo, error: 'Unknown user name or wrong password.', username }), 401);
    }
    const { secret } = await Auth.startSession(flows, user.username, []);
    setCookie(c, sessionCookie, secret, { ...cookieOptions, maxAge: Auth.Lifetime.sessionAbsoluteSeconds });
    return c.redirect(returnTo, 303);
  });

  app.get('/auth/callback', async (c) => {
    requireSignInMode();
    pageHeaders(c);
    const secret = getCookie(c, signInCookie, 'host');
    deleteCookie(c, signInCookie, cookieOptions);
    const pending = secret ? await deps.signIns.takePending(Auth.hashSecret(secret), deps.clock.now()) : null;
    if (!pending || !deps.provider || settings.mode !== Auth.AuthMode.Oidc) {
      return c.html(messagePage('Sign-in expired', 'This sign-in is unknown or too old; start again.'), 400);
    }
    let claims: Record<string, unknown>;
    try {
      claims = await deps.provider.claims(new URL(c.req.url), {
        state: pending.state,
        nonce: pending.nonce,
        codeVerifier: pending.code_verifier,
      });
    } catch (error) {
      console.error(JSON.stringify({ level: 'warn', msg: 'oidc sign-in refused', error: String(error) }));
      return c.html(
        messagePage('Sign-in failed', 'The identity provider’s answer was refused; start again.'),
        400,
      );
    }
    const name = claims[settings.oidc.username_claim];
    const username = typeof name === 'string' ? name.toLowerCase() : '';
    if (!/^[a-z0-9][a-z0-9._-]{0,62}$/.test(username)) {
      return c.html(
        messagePage('Sign-in failed', `The claim ${settings.oidc.username_claim} is not a usable user name.`),
        400,
      );
    }
    const claimGrants = Auth.grantsFromClaims(claims, {
      claim: settings.oidc.grants_claim,
      values: settings.oidc.claim_grants,
      default_grants: settings.oidc.default_grants,
    });
    if (!(await Auth.currentGrants(flows, username, claimGrants))) {
      return c.html(messagePage('Sign-in refused', 'This user is disabled.'), 403);
    }
    const session = await Auth.startSession(flows, username, claimGrants);
    setCookie(c, sessionCookie, session.secret, {
      ...cookieOptions,
      maxAge: Auth.Lifetime.sessionAbsoluteSeconds,
    });
    return c.redirect(pending.return_to, 303);
  });

  app.post('/auth/logout', async (c) => {
    requireSignInMode();
    const current = await liveSession(c);
    const fields = c.req.header('content-type')?.startsWith('application/x-www-form-urlencoded')
      ? await form(c)
      : {};
    if (current) {
      requireCsrf(deps, c, current.secret, fields.csrf_token);
      await Auth.endSession(flows, current.secret);
    }
    deleteCookie(c, sessionCookie, cookieOptions);
    // A sign-out form of the console names the page to land on.
    if (fields.return_to) return c.redirect(safeReturnTo(fields.return_to), 303);
    return c.body(null, 204);
  });

  app.get('/auth/authorize', async (c) => {
    requireSignInMode();
    pageHeaders(c);
    const q = (name: string) => c.req.query(name) ?? '';
    const redirectUri = q('redirect_uri');
    if (q('client_id') !== Auth.cliClientId || !Auth.isLoopbackRedirect(redirectUri)) {
      // Never redirect to an unverified address (RFC 6749 §4.1.2.1): tell the person instead.
      return c.html(
        messagePage(
          'Invalid sign-in request',
          `client_id must be ${Auth.cliClientId} and redirect_uri http://127.0.0.1:<port>/… or http://[::1]:<port>/….`,
        ),
        400,
      );
    }
    const back = (params: Record<string, string>) => {
      const url = new URL(redirectUri);
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      return c.redirect(url.href, 302);
    };
    const state = q('state');
    if (!stateShape.test(state))
      return back({ error: 'invalid_request', error_description: 'state is required' });
    if (q('response_type') !== 'code') {
      return back({
        error: 'unsupported_response_type',
        error_description: 'response_type must be code',
        state,
      });
    }
    if (q('code_challenge_method') !== 'S256' || !challengeShape.test(q('code_challenge'))) {
      return back({
        error: 'invalid_request',
        error_description: 'PKCE is required: code_challenge (S256) and code_challenge_method=S256',
        state,
      });
    }
    const current = await liveSession(c);
    if (!current) {
      const here = new URL(c.req.url);
      return c.redirect(`/auth/login?return_to=${encodeURIComponent(here.pathname + here.search)}`, 303);
    }
    const code = await Auth.issueCode(flows, current.session, {
      client_id: Auth.cliClientId,
      redirect_uri: redirectUri,
      code_challenge: q('code_challenge'),
    });
    return back({ code, state });
  });

  app.post('/auth/token', async (c) => {
    requireSignInMode();
    const fields = await form(c);
    if (fields.client_id !== Auth.cliClientId) {
      return oauthError(c, 'invalid_client', `client_id must be ${Auth.cliClientId}`, 401);
    }
    try {
      let answer: Auth.TokenAnswer;
      if (fields.grant_type === 'authorization_code') {
        answer = await Auth.exchangeCode(flows, {
          code: fields.code ?? '',
          redirect_uri: fields.redirect_uri ?? '',
          client_id: fields.client_id,
          code_verifier: fields.code_verifier ?? '',
        });
      } else if (fields.grant_type === 'refresh_token') {
        answer = await Auth.refresh(flows, {
          refresh_token: fields.refresh_token ?? '',
          client_id: fields.client_id,
        });
      } else {
        return oauthError(
          c,
          'unsupported_grant_type',
          'grant_type must be authorization_code or refresh_token',
        );
      }
      noStore(c);
      return c.json(answer);
    } catch (error) {
      if (error instanceof Auth.OAuthError) return oauthError(c, error.error, error.message);
      throw error;
    }
  });

  app.post('/auth/revoke', async (c) => {
    requireSignInMode();
    const fields = await form(c);
    if (fields.client_id !== Auth.cliClientId) {
      return oauthError(c, 'invalid_client', `client_id must be ${Auth.cliClientId}`, 401);
    }
    await Auth.revokeToken(flows, fields.token ?? '');
    noStore(c);
    return c.body(null, 200);
  });
}
