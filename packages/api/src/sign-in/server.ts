/**
 * The service as its own OAuth 2.0 authorization server for its CLI, and the sign-in pages of
 * browser sessions, outside `/v1`: `GET /auth/config`, `GET|POST /auth/login`, `GET /auth/callback`
 * (oidc), `POST /auth/logout`, `GET|POST /auth/authorize`, `POST /auth/token`, `POST /auth/revoke`.
 */
import { authDocuments } from '@svc/console';
import type { signInOperations } from '@svc/contract';
import { Auth, ErrorCode, ProblemError } from '@svc/core';
import type { Context } from 'hono';
import type { HandlersOf } from '../bind.ts';
import { type AuthDeps, expectedOrigin, liveSession, signInDeps } from '../middleware/auth.ts';
import { authorizeDecision, authorizeRequest } from './authorize.ts';
import { loginPage, logout, passwordSignIn, providerCallback } from './browser.ts';
import type { IdentityProvider } from './oidc.ts';
import { type AuthServerDeps, noStore } from './pages.ts';

/** Said loudly wherever the mode shows (`/auth/config`, `/healthz`): these modes check no credential. */
export function authWarning(mode: Auth.AuthMode): string | null {
  if (mode === Auth.AuthMode.Anonymous) {
    return 'ANONYMOUS MODE: no credentials are checked; every caller acts with the same grants.';
  }
  if (mode === Auth.AuthMode.Dev)
    return 'DEV MODE: every caller is the Admin identity; local development only.';
  return null;
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

async function config(c: Context, deps: AuthServerDeps, signIn: boolean) {
  noStore(c);
  const { settings } = deps;
  const current = signIn ? await liveSession(deps, c) : null;
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
  } satisfies Auth.AuthConfigView);
}

async function token(c: Context, deps: AuthServerDeps) {
  const fields = await form(c);
  if (fields.client_id !== Auth.cliClientId) {
    return oauthError(c, 'invalid_client', `client_id must be ${Auth.cliClientId}`, 401);
  }
  const flows = signInDeps(deps);
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
}

async function revoke(c: Context, deps: AuthServerDeps) {
  const fields = await form(c);
  if (fields.client_id !== Auth.cliClientId) {
    return oauthError(c, 'invalid_client', `client_id must be ${Auth.cliClientId}`, 401);
  }
  await Auth.revokeToken(signInDeps(deps), fields.token ?? '');
  noStore(c);
  return c.body(null, 200);
}

/** The sign-in operations of the contract; outside the sign-in modes each answers 404 but the configuration. */
export function signInHandlers(
  base: AuthDeps & { provider: IdentityProvider | null },
): HandlersOf<typeof signInOperations> {
  const deps: AuthServerDeps = { ...base, pages: authDocuments() };
  const { mode } = deps.settings;
  const signIn = Auth.signInModes.includes(mode);
  const signInOnly =
    (handler: (c: Context) => Promise<Response>) =>
    (c: Context): Promise<Response> => {
      if (!signIn) {
        throw new ProblemError(
          ErrorCode.NotFound,
          `This installation (auth mode ${mode}) has no sign-in; use a bearer token.`,
        );
      }
      return handler(c);
    };

  return {
    getAuthConfig: (c) => config(c, deps, signIn),
    signInPage: signInOnly((c) => loginPage(c, deps)),
    signInWithPassword: signInOnly(async (c) => {
      if (mode !== Auth.AuthMode.Password) {
        throw new ProblemError(
          ErrorCode.NotFound,
          'This installation signs in through its identity provider.',
        );
      }
      return passwordSignIn(c, deps, await form(c));
    }),
    signInCallback: signInOnly((c) => providerCallback(c, deps)),
    signOut: signInOnly(async (c) => {
      const fields = c.req.header('content-type')?.startsWith('application/x-www-form-urlencoded')
        ? await form(c)
        : {};
      return logout(c, deps, fields);
    }),
    authorize: signInOnly((c) => authorizeRequest(c, deps)),
    authorizeDecision: signInOnly(async (c) => authorizeDecision(c, deps, await form(c))),
    token: signInOnly((c) => token(c, deps)),
    revoke: signInOnly((c) => revoke(c, deps)),
  };
}
