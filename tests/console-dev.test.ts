/**
 * The console in dev mode: nobody signs in, every read works without JavaScript, and what the
 * pages load comes from the app itself under a strict Content-Security-Policy.
 */
import { readFileSync } from 'node:fs';
import type { Stack } from '@svc/local';
import { type HttpClient, useChromium, useTestStack } from '@svc/local/testing';
import { expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;

useTestStack({}, (environment) => {
  stack = environment.stack;
  http = environment.http;
});

const chromium = useChromium();

it('dev mode signs in by itself', async () => {
  const page = await chromium.newPage();
  await page.goto(`${stack.apiUrl}/console/sign-in?return_to=${encodeURIComponent('/console/catalog')}`);
  expect(new URL(page.url()).pathname).toBe('/console/catalog');
  expect(await page.locator('.who').textContent()).toContain('admin');
  expect(await page.getByRole('heading', { name: 'demo' }).count()).toBe(1);
  expect(await page.getByRole('row', { name: /service-b/ }).count()).toBeGreaterThan(0);
  await page.close();
});

it('every read works without JavaScript', async () => {
  const created = await createComposition(http, {
    'service-b': { image: 'registry.example.com/demo/service-b:2.0.0' },
  });
  await waitForPhase(http, created.id, ['ready']);
  const context = await chromium.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${stack.apiUrl}/`);
  expect(new URL(page.url()).pathname).toBe('/console/compositions');
  await page.getByLabel('Phase').selectOption('ready');
  await page.getByRole('button', { name: 'Filter' }).click();
  expect(new URL(page.url()).searchParams.get('phase')).toBe('ready');
  await page.getByRole('link', { name: created.name }).first().click();
  expect(await page.locator('[data-phase]').first().textContent()).toBe('ready');
  // Without scripts the TTL is still there, counted when the page was made.
  expect(await page.locator('time[data-countdown]').textContent()).toMatch(/^\dh \d\dm$/);
  await page.getByLabel('Component', { exact: true }).selectOption('service-b');
  await page.getByRole('button', { name: 'Show logs' }).click();
  expect(new URL(page.url()).searchParams.get('component')).toBe('service-b');
  expect(await page.locator('pre[data-logs=service-b]').first().textContent()).toContain(
    'starting service-b',
  );
  await context.close();
});

it('serves its pinned htmx and its own assets, with no inline script and a strict policy', async () => {
  const htmxVersion = JSON.parse(readFileSync('node_modules/htmx.org/package.json', 'utf8')).version;
  expect(htmxVersion).toBe('4.0.1');
  const response = await fetch(`${stack.apiUrl}/console/compositions`);
  const policy = response.headers.get('content-security-policy') ?? '';
  expect(policy).toContain("script-src 'self'");
  expect(policy).not.toContain('unsafe-inline');
  expect(policy).toContain("frame-ancestors 'none'");
  const page = await response.text();
  expect(page).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  expect(page).not.toMatch(/\son[a-z]+=/);
  const scripts = [...page.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toContain(`/console/assets/htmx-${htmxVersion}.min.js`);
  for (const path of scripts) {
    const asset = await fetch(`${stack.apiUrl}${path}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
  }
  const htmx = await fetch(`${stack.apiUrl}/console/assets/htmx-${htmxVersion}.min.js`);
  expect(await htmx.text()).toBe(readFileSync('node_modules/htmx.org/dist/htmx.min.js', 'utf8'));
});

it('reports no violation of its own policy in the browser', async () => {
  const page = await chromium.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${stack.apiUrl}/console/compositions/new`);
  await page.getByLabel('Name').fill('checked');
  await page.getByRole('button', { name: 'Plan' }).click();
  await page.locator('#plan').waitFor();
  await page.goto(`${stack.apiUrl}/console/compositions`);
  await page.waitForFunction(() => 'htmx' in globalThis);
  expect(problems).toEqual([]);
  await page.close();
});

it('an unknown page is an HTML 404 inside the console', async () => {
  const response = await fetch(`${stack.apiUrl}/console/nowhere`);
  expect(response.status).toBe(404);
  expect(response.headers.get('content-type')).toContain('text/html');
  const missing = await fetch(`${stack.apiUrl}/console/compositions/c-doesnotexist`);
  expect(missing.status).toBe(404);
  expect(await missing.text()).toContain('not_found');
});

interface Control {
  labels: { length: number } | null;
  getAttribute(name: string): string | null;
  outerHTML: string;
  textContent: string | null;
}

it('pages are labelled, landmarked and usable from the keyboard with a visible focus', async () => {
  const created = await createComposition(http, {}, { name: 'keyboard' });
  const page = await chromium.newPage();
  for (const path of [
    '/console/compositions',
    `/console/compositions/${created.id}`,
    '/console/compositions/new',
    `/console/compositions/${created.id}/destroy`,
    '/console/catalog',
    '/console/tokens',
  ]) {
    await page.goto(`${stack.apiUrl}${path}`);
    expect(await page.locator('html').getAttribute('lang'), path).toBe('en');
    expect(await page.locator('h1').count(), path).toBe(1);
    expect(await page.locator('main').count(), path).toBe(1);
    const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (controls) =>
      (controls as unknown as Control[])
        .filter((c) => !c.labels?.length && !c.getAttribute('aria-label'))
        .map((c) => c.outerHTML),
    );
    expect(unlabelled, path).toEqual([]);
    const nameless = await page.$$eval('button:not([hidden]), a', (elements) =>
      (elements as unknown as Control[])
        .filter((e) => !e.textContent?.trim() && !e.getAttribute('aria-label'))
        .map((e) => e.outerHTML),
    );
    expect(nameless, path).toEqual([]);
  }

  await page.goto(`${stack.apiUrl}/console/compositions`);
  await page.keyboard.press('Tab');
  expect(await page.locator(':focus').textContent()).toBe('Skip to content');
  await page.keyboard.press('Enter');
  expect(await page.locator(':focus').getAttribute('id')).toBe('main');
  await page.keyboard.press('Tab');
  const ring = await page.locator(':focus').evaluate((element) => {
    const style = (
      globalThis as unknown as {
        getComputedStyle(e: unknown): { outlineStyle: string; outlineWidth: string };
      }
    ).getComputedStyle(element);
    return { outlineStyle: style.outlineStyle, outlineWidth: style.outlineWidth };
  });
  expect(ring.outlineStyle).toBe('solid');
  expect(ring.outlineWidth).toBe('3px');
  await page.close();
});
