/**
 * Signing in as a person does it, in Chromium (Debian's, through playwright-core): `svc auth login`
 * end to end — the CLI prints the address, the browser signs in (after a typo), consents, and the
 * CLI saves the login — its cancellations ending the CLI's wait at once, the console's retry after
 * a typo, and return addresses that cannot send a person off-site.
 */
import { readFileSync } from 'node:fs';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { useChromium, useTestStack } from '@svc/local/testing';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, type SvcResult, svc } from '../packages/cli/test/helpers.ts';

let stack: Stack;

useTestStack({ authMode: Auth.AuthMode.Password, alongside: ensureBuilt }, (environment) => {
  stack = environment.stack;
});

const chromium = useChromium();

const configDir = () => `${process.env.TMPDIR ?? '/tmp'}/svc-chromium-${Math.random().toString(36).slice(2)}`;

/** Runs `svc auth login --no-browser`; `inBrowser` plays the person on the address it prints. */
async function cliLogin(
  inBrowser: (page: Page) => Promise<void>,
): Promise<{ result: SvcResult; dir: string }> {
  const dir = configDir();
  const context = await chromium.newContext();
  let person: Promise<void> | undefined;
  let printed = '';
  const result = await svc(['auth', 'login', '--no-browser', '--timeout', '2m'], {
    apiUrl: stack.apiUrl,
    env: { XDG_CONFIG_HOME: dir },
    onStderr: (chunk) => {
      printed += chunk;
      const url = /(http:\/\/\S+\/auth\/authorize\S+)/.exec(printed)?.[1];
      if (!url || person) return;
      person = (async () => {
        const page = await context.newPage();
        await page.goto(url);
        await inBrowser(page);
      })();
    },
  });
  await person;
  await context.close();
  return { result, dir };
}

async function signInForm(page: Page, username: string, password: string) {
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('svc auth login in a real browser', () => {
  it('signs in after a typo, asks consent naming the CLI and its port, and the CLI saves the login', async () => {
    const { result, dir } = await cliLogin(async (page) => {
      expect(await page.locator('header.top .brand').textContent()).toBe('Preview Composition Service');
      await signInForm(page, 'bob', 'not-bobs-password');
      // The retry page: the console's layout, the message, the name kept, a form that works.
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').textContent()).toContain('Unknown user name or wrong password.');
      expect(await page.getByLabel('User name').inputValue()).toBe('bob');
      expect(await page.locator('header.top').count()).toBe(1);
      await signInForm(page, 'bob', 'bob-local-password');
      await page.getByRole('heading', { name: 'Sign in the svc CLI on this computer?' }).waitFor();
      const port = /port (\d+)/.exec((await page.locator('main').textContent()) ?? '')?.[1];
      expect(Number(port)).toBeGreaterThan(0);
      expect(await page.locator('main').textContent()).toContain('user:bob');
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.getByRole('heading', { name: 'Signed in' }).waitFor();
      expect(new URL(page.url()).origin).toBe(`http://127.0.0.1:${port}`);
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.json()).toMatchObject({ subject: 'user:bob', api_url: stack.apiUrl });
    const saved = JSON.parse(readFileSync(`${dir}/svc/credentials.json`, 'utf8'));
    expect(saved.servers[new URL(stack.apiUrl).origin]).toMatchObject({ subject: 'user:bob' });
  });

  it('stops waiting as soon as the person cancels on the sign-in page', async () => {
    const { result } = await cliLogin(async (page) => {
      await signInForm(page, 'bob', 'still-not-bobs-password');
      await page.getByRole('alert').waitFor();
      await page.getByRole('link', { name: 'Cancel the sign-in' }).click();
      await page.getByRole('heading', { name: 'Sign-in stopped' }).waitFor();
    });
    expect(result.code).toBe(5);
    expect(result.problem()).toMatchObject({ code: 'login_failed' });
    expect(result.problem().detail).toContain('the sign-in was cancelled in the browser');
  });

  it('stops waiting when the person declines the consent, and saves nothing', async () => {
    const { result, dir } = await cliLogin(async (page) => {
      await signInForm(page, 'carol', 'carol-local-password');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('heading', { name: 'Sign-in stopped' }).waitFor();
    });
    expect(result.code).toBe(5);
    expect(result.problem().detail).toContain('declined the sign-in');
    expect(() => readFileSync(`${dir}/svc/credentials.json`)).toThrow();
  });
});

describe('the console in a real browser', () => {
  it('signs in after a typo on the retry page and lands on the page asked for', async () => {
    const page = await chromium.newPage();
    await page.goto(`${stack.apiUrl}/console/catalog`);
    await signInForm(page, 'alice', 'alice-typo-password');
    await page.getByRole('alert').waitFor();
    expect(await page.title()).toBe('Sign in · Preview Composition Service');
    await signInForm(page, 'alice', 'alice-local-password');
    await page.waitForURL(`${stack.apiUrl}/console/catalog`);
    expect(await page.locator('.who').textContent()).toContain('user:alice');
  });

  it.each([
    ['a tab', '/\t/evil.example/'],
    ['a backslash', '/\\evil.example/'],
    ['a line feed', '/\n/evil.example/'],
    ['an encoded slash', '/%2F/evil.example/'],
    ['an absolute address', 'https://evil.example/'],
  ])('never leaves the service after sign-in for a return address with %s', async (_name, returnTo) => {
    const page = await chromium.newPage();
    await page.goto(`${stack.apiUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`);
    await signInForm(page, 'carol', 'carol-local-password');
    await page.waitForLoadState();
    const landed = new URL(page.url());
    expect(landed.origin).toBe(new URL(stack.apiUrl).origin);
    expect(landed.pathname).toBe('/console/compositions');
  });
});
