/**
 * The console on an oidc installation: signing in is a hand-off to the identity provider and back,
 * and neither coming back nor signing out can send the browser to another site.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { useChromium, useTestStack } from '@svc/local/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

let stack: Stack;
/** Another site on loopback, so a browser sent there really lands (the network is closed). */
let attacker: Server;
let attackerHost: string;
const attackerVisits: string[] = [];

useTestStack({ authMode: Auth.AuthMode.Oidc }, (environment) => {
  stack = environment.stack;
});
const chromium = useChromium();

beforeAll(async () => {
  attacker = createServer((request, response) => {
    attackerVisits.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'text/html' }).end('<title>attacker</title>');
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerHost = `127.0.0.1:${(attacker.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => attacker?.close(resolve));
});

/** Return addresses a browser resolves to `//<attacker>/`: dot segments, escapes, backslashes, tabs. */
const offSite = (host: string) => [
  `/.//${host}/`,
  `/..//${host}/`,
  `/%2e//${host}/`,
  `/%2E%2e//${host}/`,
  `/console/..//${host}/`,
  `/console/../..//${host}/`,
  `/.\\${host}/`,
  `/./%2f${host}/`,
  `/.\t//${host}/`,
  `/.\n//${host}/`,
  `//${host}/`,
];

it('signs in at the identity provider and comes back to the page asked for', async () => {
  const page = await chromium.newPage();
  await page.goto(`${stack.apiUrl}/console/catalog`);
  expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  await page.getByRole('link', { name: 'Sign in with the identity provider' }).click();
  const providerOrigin = new URL(stack.identityProvider?.issuer ?? '').origin;
  await page.waitForURL((url) => url.origin === providerOrigin);
  await page.locator('input[name=login]').fill('carol');
  await page.locator('input[name=password]').fill('carol-local-password');
  await page.locator('button[type=submit], input[type=submit]').first().click();
  await page.waitForURL(`${stack.apiUrl}/console/catalog`);
  expect(await page.locator('.who').textContent()).toContain('user:carol');
  expect(await page.locator('.who').textContent()).toContain('viewer on demo');
  expect(await page.getByRole('link', { name: 'Tokens' }).count()).toBe(0);
  await page.close();
});

it('lands on the console home, not off-site, for a return address with a tab', async () => {
  const page = await chromium.newPage();
  await page.goto(`${stack.apiUrl}/auth/login?return_to=${encodeURIComponent('/\t/evil.example/')}`);
  const providerOrigin = new URL(stack.identityProvider?.issuer ?? '').origin;
  await page.waitForURL((url) => url.origin === providerOrigin);
  await page.locator('input[name=login]').fill('bob');
  await page.locator('input[name=password]').fill('bob-local-password');
  await page.locator('button[type=submit], input[type=submit]').first().click();
  await page.waitForURL(`${stack.apiUrl}/console/compositions`);
  expect(await page.locator('.who').textContent()).toContain('user:bob');
  await page.close();
});

it('comes back to the service, never to another site, for return addresses with dot segments', async () => {
  const context = await chromium.newContext();
  const providerOrigin = new URL(stack.identityProvider?.issuer ?? '').origin;
  for (const [i, returnTo] of offSite(attackerHost).entries()) {
    const page = await context.newPage();
    await page.goto(`${stack.apiUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    if (i === 0) {
      // The provider remembers the person afterwards: only the first sign-in shows its form.
      await page.waitForURL((url) => url.origin === providerOrigin);
      await page.locator('input[name=login]').fill('carol');
      await page.locator('input[name=password]').fill('carol-local-password');
      await page.locator('button[type=submit], input[type=submit]').first().click();
    }
    await page.waitForURL((url) => url.origin !== providerOrigin && !url.pathname.startsWith('/auth/'));
    expect(page.url(), JSON.stringify(returnTo)).toBe(`${stack.apiUrl}/console/compositions`);
    await page.close();
  }
  expect(attackerVisits).toEqual([]);
  await context.close();
});

it('signs a signed-out visitor out onto the service, never onto another site', async () => {
  const context = await chromium.newContext();
  for (const returnTo of offSite(attackerHost)) {
    const page = await context.newPage();
    // A page anywhere can post this form; no session, so no CSRF token is asked for.
    await page.setContent(
      `<form method="post" action="${stack.apiUrl}/auth/logout"><input name="return_to"><button>out</button></form>`,
    );
    await page.locator('input[name=return_to]').fill(returnTo);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'out' }).click()]);
    expect(new URL(page.url()).origin, JSON.stringify(returnTo)).toBe(new URL(stack.apiUrl).origin);
    await page.close();
  }
  expect(attackerVisits).toEqual([]);
  await context.close();
});
