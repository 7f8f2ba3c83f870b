/** The console on an oidc installation: signing in is a hand-off to the identity provider and back. */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { launchChromium, useTestStack } from '@svc/local/testing';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

let stack: Stack;
let browser: Browser;

useTestStack({ authMode: Auth.AuthMode.Oidc }, (environment) => {
  stack = environment.stack;
});

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

it('signs in at the identity provider and comes back to the page asked for', async () => {
  const page = await browser.newPage();
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
  const page = await browser.newPage();
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
