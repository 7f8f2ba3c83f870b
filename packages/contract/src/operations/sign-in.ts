/**
 * The service as its own OAuth 2.0 authorization server for its CLI, and the sign-in pages of
 * browser sessions. None takes a bearer token: each is open, or proves the caller by what it carries
 * (a password, an authorization code, a refresh token, the session cookie with its CSRF token).
 */
import { Auth, ErrorCode } from '@svc/core';
import * as v from 'valibot';
import type { Answer, OpenOperation } from '../operation.ts';
import { textParam } from '../query.ts';

const tag = 'sign-in';
const page = (description: string) => ({ description, html: true }) as const satisfies Answer;
const redirect = (description: string) => ({ description, redirect: true }) as const satisfies Answer;
const oauthError = (description: string) =>
  ({ description, json: Auth.OAuthErrorView }) as const satisfies Answer;
const returnTo = v.optional(
  textParam('A path on this service to land on once signed in; anything else lands on the console.'),
);
const oauth = (name: string) => v.optional(textParam(`OAuth ${name} (RFC 6749, RFC 7636).`));

export const signInOperations = {
  getAuthConfig: {
    method: 'get',
    path: '/auth/config',
    summary:
      "How to sign in here (mode, OAuth endpoints, lifetimes) and the browser's session with its CSRF token.",
    tag,
    proof: 'none; the session cookie, when sent, adds the session and its CSRF token',
    responses: { 200: { description: 'The configuration.', json: Auth.AuthConfigView } },
  },

  signInPage: {
    method: 'get',
    path: '/auth/login',
    summary: 'The sign-in page (password mode), or a redirect to the identity provider (oidc mode).',
    tag,
    signInOnly: true,
    proof: 'none',
    query: v.object({ return_to: returnTo }),
    responses: {
      200: page('The password form.'),
      302: redirect("To the identity provider's authorization endpoint."),
    },
  },

  signInWithPassword: {
    method: 'post',
    path: '/auth/login',
    summary: 'Signs a person in with a password and sets the session cookie (password mode).',
    tag,
    signInOnly: true,
    proof: "the person's password",
    form: Auth.PasswordSignInForm,
    responses: {
      303: redirect('Signed in: to return_to, with the session cookie set.'),
      401: page('The form again: unknown user name or wrong password.'),
      403: page('The form again: the post did not come from this page (Origin).'),
      429: page('The form again: too many attempts for this name; Retry-After says when.'),
    },
  },

  signInCallback: {
    method: 'get',
    path: '/auth/callback',
    summary: "The identity provider's redirect back (oidc mode): checks its answer, sets the session cookie.",
    tag,
    signInOnly: true,
    proof: "the provider's authorization response and this browser's pending sign-in cookie",
    responses: {
      303: redirect('Signed in (to return_to), or the CLI told the sign-in failed.'),
      400: page('The sign-in is unknown or too old, or the answer was refused.'),
      403: page('This user is disabled.'),
    },
  },

  signOut: {
    method: 'post',
    path: '/auth/logout',
    summary: 'Ends the browser session and clears its cookie.',
    tag,
    signInOnly: true,
    proof: "the session cookie and its CSRF token (csrf_token), with this service's Origin",
    form: Auth.LogoutForm,
    formOptional: true,
    responses: {
      204: { description: 'Signed out.' },
      303: redirect('Signed out: to return_to.'),
    },
    errors: [ErrorCode.CsrfRejected],
  },

  authorize: {
    method: 'get',
    path: '/auth/authorize',
    summary:
      "The CLI's authorization request (OAuth 2.0 code flow with PKCE, loopback redirect): asks a signed-in person to consent.",
    tag,
    signInOnly: true,
    proof: 'the session cookie (else a redirect to /auth/login)',
    query: v.object({
      response_type: oauth('response_type'),
      client_id: oauth('client_id'),
      redirect_uri: oauth('redirect_uri'),
      code_challenge: oauth('code_challenge'),
      code_challenge_method: oauth('code_challenge_method'),
      state: oauth('state'),
      cancel: oauth('cancel'),
    }),
    responses: {
      200: page('The consent page.'),
      303: redirect('To /auth/login first, or back to the CLI with an error (access_denied when cancelled).'),
      400: page('client_id or redirect_uri is not the CLI on a loopback address: nothing is sent there.'),
    },
  },

  authorizeDecision: {
    method: 'post',
    path: '/auth/authorize',
    summary: "The consent page's answer: a code for Allow, access_denied for Cancel.",
    tag,
    signInOnly: true,
    proof: "the session cookie and its CSRF token (csrf_token), with this service's Origin",
    form: Auth.AuthorizeDecisionForm,
    responses: {
      303: redirect("Back to the CLI's loopback address with code and state, or with access_denied."),
      400: page('The request is not the CLI on a loopback address, or the session ended.'),
      403: page("The answer did not come from this service's own page."),
    },
  },

  token: {
    method: 'post',
    path: '/auth/token',
    summary: 'Trades an authorization code (with its PKCE verifier) or a refresh token for tokens.',
    tag,
    signInOnly: true,
    proof: 'the authorization code and PKCE verifier, or the refresh token',
    form: Auth.TokenRequestForm,
    responses: {
      200: { description: 'A 15-minute access token and a rotated refresh token.', json: Auth.TokenAnswer },
      400: oauthError('invalid_request, invalid_grant or unsupported_grant_type.'),
      401: oauthError('invalid_client: client_id is not the CLI.'),
    },
  },

  revoke: {
    method: 'post',
    path: '/auth/revoke',
    summary: 'Revokes a refresh or access token and the sign-in it belongs to (RFC 7009).',
    tag,
    signInOnly: true,
    proof: 'the token itself',
    form: Auth.RevokeForm,
    responses: {
      200: { description: 'Revoked, or unknown already (RFC 7009 answers 200 either way).' },
      401: oauthError('invalid_client: client_id is not the CLI.'),
    },
  },
} as const satisfies Record<string, OpenOperation>;
