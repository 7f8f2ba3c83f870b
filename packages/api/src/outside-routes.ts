/**
 * The routes outside `/v1`, as the OpenAPI document describes them: the health and version probes
 * (app.ts) and the sign-in endpoints (auth-server.ts). None takes a bearer token: they are open, or
 * prove the caller by what they carry (a password, an authorization code, a refresh token, the
 * session cookie with its CSRF token). tests/openapi-contract.test.ts and
 * tests/openapi-sign-in.test.ts check real answers of each against this description.
 */
import { Auth, ErrorCode, HealthReport, VersionView } from '@svc/core';
import type * as v from 'valibot';
import type { QueryParam } from './registry.ts';

export interface OutsideResponse {
  description: string;
  /** A JSON body of this shape. */
  json?: v.GenericSchema;
  /** An HTML page (a sign-in page, its retry, a message). */
  html?: true;
  /** A redirect: where to, in `Location`. */
  redirect?: true;
}

export interface OutsideRoute {
  method: 'get' | 'post';
  path: string;
  operationId: string;
  summary: string;
  tag: 'service' | 'sign-in';
  /** Answered 404 `not_found` by installations without browser sign-in (dev, token, shared-token, anonymous). */
  signInOnly?: true;
  query?: QueryParam[];
  /** An `application/x-www-form-urlencoded` body of this shape (other media types: 415). */
  form?: v.GenericSchema;
  /** The form may be left out (any other body is then ignored, not refused). */
  formOptional?: true;
  responses: Record<number, OutsideResponse>;
  /** Problem codes answered besides the sign-in routes' 404 and a form's 415. */
  problems?: ErrorCode[];
  /** What the caller proves instead of a bearer token. */
  proof: string;
}

const page = (description: string): OutsideResponse => ({ description, html: true });
const redirect = (description: string): OutsideResponse => ({ description, redirect: true });
const oauthError = (description: string): OutsideResponse => ({ description, json: Auth.OAuthErrorView });
const returnTo: QueryParam = {
  name: 'return_to',
  description: 'A path on this service to land on once signed in; anything else lands on the console.',
  schema: { type: 'string' },
};

export const outsideRoutes: readonly OutsideRoute[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    summary: 'Each dependency (DynamoDB, SQS, the clusters) with its latency, and the auth mode.',
    tag: 'service',
    proof: 'none: open to load balancers and monitors',
    responses: {
      200: { description: 'Every dependency answers.', json: HealthReport },
      503: { description: 'A dependency does not answer (status degraded).', json: HealthReport },
    },
  },
  {
    method: 'get',
    path: '/version',
    operationId: 'getVersion',
    summary: "The server's release and commit.",
    tag: 'service',
    proof: 'none',
    responses: { 200: { description: 'Release and commit.', json: VersionView } },
  },
  {
    method: 'get',
    path: '/auth/config',
    operationId: 'getAuthConfig',
    summary:
      "How to sign in here (mode, OAuth endpoints, lifetimes) and the browser's session with its CSRF token.",
    tag: 'sign-in',
    proof: 'none; the session cookie, when sent, adds the session and its CSRF token',
    responses: { 200: { description: 'The configuration.', json: Auth.AuthConfigView } },
  },
  {
    method: 'get',
    path: '/auth/login',
    operationId: 'signInPage',
    summary: 'The sign-in page (password mode), or a redirect to the identity provider (oidc mode).',
    tag: 'sign-in',
    signInOnly: true,
    proof: 'none',
    query: [returnTo],
    responses: {
      200: page('The password form.'),
      302: redirect("To the identity provider's authorization endpoint."),
    },
  },
  {
    method: 'post',
    path: '/auth/login',
    operationId: 'signInWithPassword',
    summary: 'Signs a person in with a password and sets the session cookie (password mode).',
    tag: 'sign-in',
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
  {
    method: 'get',
    path: '/auth/callback',
    operationId: 'signInCallback',
    summary: "The identity provider's redirect back (oidc mode): checks its answer, sets the session cookie.",
    tag: 'sign-in',
    signInOnly: true,
    proof: "the provider's authorization response and this browser's pending sign-in cookie",
    responses: {
      303: redirect('Signed in (to return_to), or the CLI told the sign-in failed.'),
      400: page('The sign-in is unknown or too old, or the answer was refused.'),
      403: page('This user is disabled.'),
    },
  },
  {
    method: 'post',
    path: '/auth/logout',
    operationId: 'signOut',
    summary: 'Ends the browser session and clears its cookie.',
    tag: 'sign-in',
    signInOnly: true,
    proof: "the session cookie and its CSRF token (csrf_token), with this service's Origin",
    form: Auth.LogoutForm,
    formOptional: true,
    responses: {
      204: { description: 'Signed out.' },
      303: redirect('Signed out: to return_to.'),
    },
    problems: [ErrorCode.CsrfRejected],
  },
  {
    method: 'get',
    path: '/auth/authorize',
    operationId: 'authorize',
    summary:
      "The CLI's authorization request (OAuth 2.0 code flow with PKCE, loopback redirect): asks a signed-in person to consent.",
    tag: 'sign-in',
    signInOnly: true,
    proof: 'the session cookie (else a redirect to /auth/login)',
    query: [
      'response_type',
      'client_id',
      'redirect_uri',
      'code_challenge',
      'code_challenge_method',
      'state',
      'cancel',
    ].map((name) => ({
      name,
      description: `OAuth ${name} (RFC 6749, RFC 7636).`,
      schema: { type: 'string' },
    })),
    responses: {
      200: page('The consent page.'),
      303: redirect('To /auth/login first, or back to the CLI with an error (access_denied when cancelled).'),
      400: page('client_id or redirect_uri is not the CLI on a loopback address: nothing is sent there.'),
    },
  },
  {
    method: 'post',
    path: '/auth/authorize',
    operationId: 'authorizeDecision',
    summary: "The consent page's answer: a code for Allow, access_denied for Cancel.",
    tag: 'sign-in',
    signInOnly: true,
    proof: "the session cookie and its CSRF token (csrf_token), with this service's Origin",
    form: Auth.AuthorizeDecisionForm,
    responses: {
      303: redirect("Back to the CLI's loopback address with code and state, or with access_denied."),
      400: page('The request is not the CLI on a loopback address, or the session ended.'),
      403: page("The answer did not come from this service's own page."),
    },
  },
  {
    method: 'post',
    path: '/auth/token',
    operationId: 'token',
    summary: 'Trades an authorization code (with its PKCE verifier) or a refresh token for tokens.',
    tag: 'sign-in',
    signInOnly: true,
    proof: 'the authorization code and PKCE verifier, or the refresh token',
    form: Auth.TokenRequestForm,
    responses: {
      200: { description: 'A 15-minute access token and a rotated refresh token.', json: Auth.TokenAnswer },
      400: oauthError('invalid_request, invalid_grant or unsupported_grant_type.'),
      401: oauthError('invalid_client: client_id is not the CLI.'),
    },
  },
  {
    method: 'post',
    path: '/auth/revoke',
    operationId: 'revoke',
    summary: 'Revokes a refresh or access token and the sign-in it belongs to (RFC 7009).',
    tag: 'sign-in',
    signInOnly: true,
    proof: 'the token itself',
    form: Auth.RevokeForm,
    responses: {
      200: { description: 'Revoked, or unknown already (RFC 7009 answers 200 either way).' },
      401: oauthError('invalid_client: client_id is not the CLI.'),
    },
  },
];
