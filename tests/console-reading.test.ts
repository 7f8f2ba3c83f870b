/**
 * The console as a person reads it, in Chromium (playwright-core) on a password installation: the
 * composition page (logs preselected and above the events, nothing left of a destroyed one but its
 * history), the navigation, readable states and times, a plan's "1 pod", pull-request previews
 * stopped by their pull request, a viewer's navigation, no request answered 404 (the icon), and
 * every page within a 390 px wide screen, long digest-pinned images wrapped.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useChromium, useTestStack } from '@svc/local/testing';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let admin: HttpClient;
/** Every answer a page got that was a 404, with its URL. */
const notFound: string[] = [];

useTestStack({ authMode: Auth.AuthMode.Password }, async (environment) => {
  stack = environment.stack;
  admin = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await environment.token('console-reader', 'admin')}`,
  });
});

const chromium = useChromium();

const imageB = (tag: string) => `registry.example.com/demo/service-b:${tag}`;
const digestImage = `registry.example.com/demo/team/checkout/service-b@sha256:${'ab12'.repeat(16)}`;

async function signedIn(username: string, width = 1280): Promise<Page> {
  const context = await chromium.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  await page.goto(`${stack.apiUrl}/console/compositions`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(`${username}-local-password`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.apiUrl}/console/compositions`);
  return page;
}

/** The visible text of `main`, outside code (ids, images and machine codes stay as they are). */
const prose = (page: Page): Promise<string> =>
  page.evaluate(`(() => {
    const main = document.querySelector('main').cloneNode(true);
    for (const code of main.querySelectorAll('code, pre, .visually-hidden')) code.remove();
    return main.innerText;
  })()`);

describe('the composition page', () => {
  it('preselects the override for logs, puts logs above the events, reads in words, and highlights Compositions', async () => {
    const created = await createComposition(admin, { 'service-b': { image: imageB('2.0.0') } });
    await waitForPhase(admin, created.id, ['ready']);
    const page = await signedIn('bob');
    await page.goto(`${stack.apiUrl}/console/compositions/${created.id}`);
    expect(await page.getByLabel('Component', { exact: true }).inputValue()).toBe('service-b');
    const order = await page.evaluate(
      `[...document.querySelectorAll('#live, #logs, #events')].map((section) => section.id)`,
    );
    expect(order).toEqual(['live', 'logs', 'events']);

    const text = await prose(page);
    expect(text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(text).not.toMatch(/\b[a-z]+_[a-z_]+\b/);
    expect(text).toMatch(/Cleanup\s*not started/);
    expect(text).toMatch(/at \d{1,2} [A-Z][a-z]{2} \d\d:\d\d UTC/);
    expect(text).toMatch(/Cluster \/ namespace\s*local \/ staging/);

    const current = page.getByRole('navigation', { name: 'Main' }).locator('a[aria-current=page]');
    expect(await current.textContent()).toBe('Compositions');
    const underline = await page.evaluate(
      `getComputedStyle(document.querySelector('nav a[aria-current=page]')).borderBottomColor`,
    );
    expect(underline).not.toBe('rgba(0, 0, 0, 0)');
    await page.close();
  });

  it('a destroyed composition shows its history, no countdown, preview URL, curl line or logs form', async () => {
    const created = await createComposition(admin, { 'service-b': { image: imageB('2.0.0') } });
    await waitForPhase(admin, created.id, ['ready']);
    expect((await admin.delete(`/v1/compositions/${created.id}`)).status).toBe(202);
    await waitForPhase(admin, created.id, ['destroyed']);
    const page = await signedIn('bob');
    await page.goto(`${stack.apiUrl}/console/compositions/${created.id}`);
    await page.locator('#live [data-phase=destroyed]').waitFor();
    for (const gone of [
      'time[data-countdown]',
      'a[data-preview-url]',
      `#curl-${created.id}`,
      '#logs',
      'form#logs',
    ]) {
      expect(await page.locator(gone).count(), gone).toBe(0);
    }
    expect(await page.locator('#events li').count()).toBeGreaterThan(0);
    expect(await page.locator('#live').textContent()).toContain('torn down');
    await page.close();
  });

  it('the plan of one override needs "1 pod"; editing a composition highlights Compositions, not New', async () => {
    const page = await signedIn('bob');
    await page.getByRole('link', { name: 'New composition' }).click();
    await page.getByLabel('Name').fill('one-pod');
    await page.getByLabel('Component 1').selectOption('service-b');
    await page.locator('#override-image-0').fill(imageB('2.0.0'));
    await page.getByRole('button', { name: 'Plan' }).click();
    expect(await page.locator('#plan').textContent()).toMatch(/MiB, 1 pod(?!s)/);

    const created = await createComposition(admin, { 'service-b': { image: imageB('2.0.0') } });
    await waitForPhase(admin, created.id, ['ready']);
    await page.goto(`${stack.apiUrl}/console/compositions/${created.id}/edit`);
    expect(await page.locator('nav a[aria-current=page]').textContent()).toBe('Compositions');
    await page.close();
  });
});

describe('pull-request previews', () => {
  it('a preview stopped because its pull request closed says "stopped" and offers no restart', async () => {
    const forge = stack.forge;
    if (!forge) throw new Error('the test stack runs the local forge');
    const { pullRequest } = await forge.open({
      repository: 'demo-org/service-b',
      head: 'closing',
      labels: ['preview'],
    });
    const number = pullRequest?.number as number;
    const page = await signedIn('bob');
    await page.goto(`${stack.apiUrl}/console/pr-previews`);
    const row = page.getByRole('row', { name: new RegExp(`demo-org/service-b#${number}\\b`) });
    await row.locator('[data-state=ready]').waitFor({ timeout: 45_000 });
    expect(await row.getByRole('button', { name: /^Stop the preview/ }).count()).toBe(1);

    await forge.close({ repository: 'demo-org/service-b', number });
    await row.locator('[data-state=stopped]').waitFor({ timeout: 30_000 });
    expect(await row.locator('[data-no-url]').textContent()).toBe('stopped');
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await row.textContent()).toContain('its pull request is closed, unlabelled or its policy is off');
    await page.close();
  });
});

describe('what a viewer is offered', () => {
  it('no "New composition" link for a viewer; a developer has one', async () => {
    const viewer = await signedIn('carol');
    expect(await viewer.getByRole('link', { name: 'New composition' }).count()).toBe(0);
    const developer = await signedIn('bob');
    expect(await developer.getByRole('link', { name: 'New composition' }).count()).toBe(1);
    await Promise.all([viewer.close(), developer.close()]);
  });
});

describe('a 390 px wide screen', () => {
  let long: { id: string };
  beforeAll(async () => {
    // A name as long as the one whose id used to break after "c-" at this width.
    long = await createComposition(
      admin,
      { 'service-b': { image: digestImage } },
      { name: 'digest-pinned-image' },
    );
    await waitForPhase(admin, long.id, ['ready']);
  });

  it('every page fits its width; a long digest-pinned image wraps inside its table', async () => {
    const page = await signedIn('alice', 390);
    for (const path of [
      '/console/compositions',
      `/console/compositions/${long.id}`,
      '/console/compositions/new',
      '/console/pr-previews',
      '/console/catalog',
      '/console/tokens',
      '/console/people',
    ]) {
      await page.goto(`${stack.apiUrl}${path}`);
      const width = await page.evaluate('document.documentElement.scrollWidth');
      expect(width, path).toBeLessThanOrEqual(390);
    }
    await page.goto(`${stack.apiUrl}/console/compositions`);
    const image = page.locator(`#row-${long.id} code`, { hasText: 'sha256' });
    const [box, table] = await Promise.all([
      image.boundingBox(),
      page.locator('table').first().boundingBox(),
    ]);
    expect(box && table && box.x + box.width <= table.x + table.width + 1).toBe(true);
    expect(box?.height ?? 0).toBeGreaterThan(30);
    await page.close();
  });

  it("one composition: its id and its preview URL's host never break inside, its values line up, its curl box has room", async () => {
    const page = await signedIn('alice', 390);
    await page.goto(`${stack.apiUrl}/console/compositions/${long.id}`);
    /** How many lines `selector`'s box spans. */
    const lines = (selector: string): Promise<number> =>
      page.evaluate(`(() => {
        const element = document.querySelector(${JSON.stringify(selector)});
        return element.getBoundingClientRect().height / parseFloat(getComputedStyle(element).lineHeight);
      })()`);
    // Phones from 320 px up: wherever the name ends, the id moves to a line of its own whole.
    for (let width = 320; width <= 390; width += 5) {
      await page.setViewportSize({ width, height: 900 });
      expect(await lines('h1 code'), `the id at ${width} px`).toBeLessThan(1.5);
    }
    // At 390 px the host fits a line: it is not broken after its "c-".
    expect(await lines('a[data-preview-url] .unbroken')).toBeLessThan(1.5);
    const starts = await page.evaluate(
      `[...document.querySelectorAll('#live .columns dd')].map((dd) => Math.round(dd.getBoundingClientRect().x))`,
    );
    expect(new Set(starts as number[]).size, `values start at ${starts}`).toBe(1);
    const curl = await page.locator('pre[id^=curl-]').boundingBox();
    expect(curl?.width ?? 0).toBeGreaterThanOrEqual(250);
    await page.close();
  });
});

it('no page or asset a person loaded answered 404 (the tab icon included)', () => {
  expect(notFound).toEqual([]);
});
