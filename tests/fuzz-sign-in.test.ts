/**
 * The fuzz campaign (tests/fuzz.test.ts) at what dev mode leaves out: the sign-in endpoints of a
 * password installation (`/auth/*`, forms and redirects, with and without a session), and the
 * whole `/v1` surface of a token installation, mostly with real tokens of several roles. Same
 * rules: nothing at or above 500, every refusal in a media type the document lists for its status
 * (problem+json with a matching body where that is it), and a refusal writes nothing but the
 * failure counters of a sign-in.
 */
import { Auth } from '@svc/core';
import { Browser, formOf, startTestStack, testToken } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Credentials, campaign, operationsOf } from './support/fuzz.ts';

const runs = Number(process.env.FUZZ_RUNS ?? 8);
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

async function documentOf(apiUrl: string) {
  return operationsOf((await (await fetch(`${apiUrl}/v1/openapi.json`)).json()) as Record<string, unknown>);
}

describe('a password installation’s sign-in endpoints', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let credentials: Credentials;
  beforeAll(async () => {
    stack = await startTestStack({ worker: false, authMode: Auth.AuthMode.Password });
    await stack.scheduler.stop();
    const browser = new Browser();
    const page = await browser.get(`${stack.apiUrl}/auth/login`);
    const form = formOf(page);
    await browser.post(form.action, { ...form.fields, username: 'bob', password: 'bob-local-password' });
    const config = JSON.parse((await browser.get(`${stack.apiUrl}/auth/config`)).text);
    const origin = new URL(stack.apiUrl).origin;
    credentials = [
      { cookie: browser.cookieHeader(), origin, 'x-csrf-token': config.csrf_token },
      { cookie: browser.cookieHeader(), origin },
      { origin },
      {},
    ];
  }, 60_000);
  afterAll(() => stack?.stop());

  it(`answers below 500 with documented refusals (${runs} runs per operation)`, async () => {
    const operations = (await documentOf(stack.apiUrl)).filter((o) => o.path.startsWith('/auth/'));
    expect(operations.length).toBeGreaterThanOrEqual(8);
    const known = { id: ['ses-none'], username: ['bob', 'alice', 'nobody'] };
    const figures = await campaign(stack, operations, { known, credentials, runs, seed });
    for (const operation of operations) expect(figures.byOperation[operation.operationId]).toBe(runs);
  }, 600_000);
});

describe('a token installation’s /v1 surface', () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let credentials: Credentials;
  beforeAll(async () => {
    stack = await startTestStack({ worker: false, authMode: Auth.AuthMode.Token });
    await stack.scheduler.stop();
    const bearer = async (name: string, access: Auth.Role | Auth.Grant[]) => ({
      authorization: `Bearer ${await testToken(stack, name, access)}`,
    });
    credentials = [
      await bearer('fuzz-admin', Auth.Role.Admin),
      await bearer('fuzz-developer', [{ role: 'developer', project: 'demo', repository: null }]),
      await bearer('fuzz-publisher', [{ role: 'publisher', project: 'demo', repository: 'acme/shop' }]),
    ];
  }, 60_000);
  afterAll(() => stack?.stop());

  it(`answers below 500 with documented refusals (${runs} runs per operation)`, async () => {
    const operations = (await documentOf(stack.apiUrl)).filter((o) => o.path.startsWith('/v1/'));
    const known = {
      project: ['demo'],
      repository: ['demo-org%2Fservice-b', 'acme%2Fshop'],
      component: ['service-a', 'service-b'],
      frontend: ['web'],
      revision: ['a'.repeat(40)],
      username: ['alice'],
    };
    const figures = await campaign(stack, operations, { known, credentials, runs, seed });
    for (const operation of operations) expect(figures.byOperation[operation.operationId]).toBe(runs);
  }, 600_000);
});
