/**
 * The sign-in endpoints outside /v1 against their OpenAPI description, on a password installation
 * where they answer for real: every answer of a CLI sign-in, its refusals and a sign-out is checked
 * against the document as a validating proxy would check it.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import {
  answerConsent,
  authorizeUrl,
  Browser,
  formOf,
  type HttpAnswer,
  httpClient,
  pkce,
  useTestStack,
} from '@svc/local/testing';
import { expect, it } from 'vitest';
import { contractChecker, type Json } from './support/openapi.ts';

let stack: Stack;
let document: Json;
const { conforms, exercised } = contractChecker(() => document);
useTestStack({ authMode: Auth.AuthMode.Password }, async (started) => {
  stack = started.stack;
  document = (await started.http.get('/v1/openapi.json')).body;
});

const redirectUri = 'http://127.0.0.1:53682/callback';
type Step = Awaited<ReturnType<Browser['get']>>;

/** A browser step as the checker reads answers: JSON parsed, an empty body null. */
function answer(step: Step): HttpAnswer {
  const json = /json/.test(step.headers.get('content-type') ?? '');
  return {
    status: step.status,
    headers: step.headers,
    body: step.text === '' ? null : json ? JSON.parse(step.text) : step.text,
  };
}

/** A form post outside the browser, for the OAuth endpoints and the refusals. */
async function post(path: string, body: string, type = 'application/x-www-form-urlencoded') {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  return answer({ status: response.status, headers: response.headers, text, url: path, location: null });
}

it('answers a CLI sign-in, its refusals and a sign-out as the document says', async () => {
  const browser = new Browser();
  const request = pkce();
  const authorize = authorizeUrl(stack.apiUrl, redirectUri, request);
  const toLogin = await browser.get(authorize);
  conforms('get', '/auth/authorize', answer(toLogin));
  const login = await browser.follow(toLogin);
  conforms('get', '/auth/login', answer(login));
  const form = formOf(login);
  conforms(
    'post',
    '/auth/login',
    answer(await browser.post(form.action, { ...form.fields, username: 'bob', password: 'wrong' })),
  );
  conforms('post', '/auth/login', await post('/auth/login', 'username=bob', 'text/plain'));
  const signedIn = await browser.post(form.action, {
    ...form.fields,
    username: 'bob',
    password: 'bob-local-password',
  });
  expect(signedIn.status).toBe(303);
  conforms('post', '/auth/login', answer(signedIn));

  const consent = await browser.follow(signedIn);
  conforms('get', '/auth/authorize', answer(consent));
  conforms(
    'get',
    '/auth/authorize',
    answer(await browser.get(authorizeUrl(stack.apiUrl, 'https://elsewhere.example/cb', request))),
  );
  const consentForm = formOf(consent);
  conforms(
    'post',
    '/auth/authorize',
    answer(
      await browser.post(consentForm.action, {
        ...consentForm.fields,
        csrf_token: 'forged',
        decision: 'allow',
      }),
    ),
  );
  const back = await answerConsent(browser, consent);
  conforms('post', '/auth/authorize', answer(back));
  const code = new URL(back.location ?? '').searchParams.get('code') ?? '';

  const exchange = new URLSearchParams({
    grant_type: 'authorization_code',
    client_id: Auth.cliClientId,
    code,
    redirect_uri: redirectUri,
    code_verifier: request.verifier,
  });
  const tokens = await post('/auth/token', exchange.toString());
  expect(tokens.status).toBe(200);
  conforms('post', '/auth/token', tokens);
  conforms('post', '/auth/token', await post('/auth/token', exchange.toString()));
  conforms('post', '/auth/token', await post('/auth/token', `client_id=someone&grant_type=refresh_token`));
  conforms(
    'post',
    '/auth/token',
    await post('/auth/token', `{"grant_type":"refresh_token"}`, 'application/json'),
  );
  conforms('post', '/auth/revoke', await post('/auth/revoke', `client_id=someone&token=x`));
  conforms(
    'post',
    '/auth/revoke',
    await post(
      '/auth/revoke',
      new URLSearchParams({ client_id: Auth.cliClientId, token: tokens.body.refresh_token }).toString(),
    ),
  );

  const config = await httpClient(stack.apiUrl, { cookie: browser.cookieHeader() }).get('/auth/config');
  conforms('get', '/auth/config', config);
  expect(config.body.session.subject).toBe('user:bob');
  conforms('get', '/healthz', await httpClient(stack.apiUrl).get('/healthz'));
  conforms('get', '/version', await httpClient(stack.apiUrl).get('/version'));
  conforms(
    'get',
    '/auth/callback',
    answer(await browser.get(`${stack.apiUrl}/auth/callback?code=x&state=y`)),
  );

  const logout = `${stack.apiUrl}/auth/logout`;
  conforms('post', '/auth/logout', answer(await browser.post(logout, { csrf_token: 'forged' })));
  const signedOut = await browser.post(logout, {
    csrf_token: config.body.csrf_token,
    return_to: '/console/sign-in',
  });
  expect(signedOut.status).toBe(303);
  conforms('post', '/auth/logout', answer(signedOut));
  conforms('post', '/auth/logout', answer(await browser.post(logout, {})));

  const outside = Object.entries(document.paths)
    .filter(([path]) => !path.startsWith('/v1/'))
    .flatMap(([path, methods]) => Object.keys(methods as Json).map((method) => `${method} ${path}`));
  expect(outside.filter((route) => !exercised.has(route))).toEqual([]);
});
