/**
 * The web console in a real browser (Debian's Chromium through playwright-core), on a password
 * installation: sign in, plan, create, watch it become ready without reloading, open the preview,
 * read logs, update with the expected generation, destroy; refusals for forged posts and roles.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import {
  authorizeUrl,
  type HttpClient,
  httpClient,
  pkce,
  useChromium,
  useTestStack,
} from '@svc/local/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let admin: HttpClient;

useTestStack({ authMode: Auth.AuthMode.Password }, async (environment) => {
  stack = environment.stack;
  admin = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await environment.token('console-admin', 'admin')}`,
  });
});

const chromium = useChromium();

const imageB = (tag: string) => `registry.example.com/demo/service-b:${tag}`;

async function signedIn(username: string): Promise<Page> {
  const page = await chromium.newPage();
  await page.goto(`${stack.apiUrl}/console/compositions`);
  expect(new URL(page.url()).pathname).toBe('/console/sign-in');
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password').fill(`${username}-local-password`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${stack.apiUrl}/console/compositions`);
  return page;
}

async function planAndCreate(page: Page, name: string, image: string): Promise<string> {
  await page.getByRole('link', { name: 'New composition' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Component 1').selectOption('service-b');
  await page.locator('#override-image-0').fill(image);
  await expect.poll(() => page.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
  await page.getByRole('button', { name: 'Plan' }).click();
  await page.getByText('No blockers: this can be created.').waitFor();
  const plan = page.locator('#plan');
  expect(await plan.getByRole('row', { name: /service-b/ }).textContent()).toContain(image);
  expect(await plan.textContent()).toMatch(/Inherited\s*service-a, service-c, service-d/);
  expect(await plan.textContent()).toMatch(/Cost estimate\s*[\d.]+ CPU core-hours/);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/\/console\/compositions\/c-[a-z0-9]+$/);
  return new URL(page.url()).pathname.split('/').pop() as string;
}

describe('a developer in the console', () => {
  it('signs in, creates through the plan, watches it become ready, opens the preview, reads logs, updates and destroys', async () => {
    const page = await signedIn('bob');
    expect(await page.locator('.who').textContent()).toContain('user:bob');

    const id = await planAndCreate(page, 'console-e2e', imageB('2.0.0'));
    // The phase turns ready on the page itself: the live part refreshes in place, no navigation.
    await page.evaluate(() => {
      (globalThis as unknown as { marker: string }).marker = 'same document';
    });
    await page.locator('#live [data-phase=ready]').waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe(
      'same document',
    );
    expect(await page.locator('[data-reason]').textContent()).toContain('Generation 1 is rolled out');
    expect(await page.locator('#live dl').first().textContent()).toContain('Owneruser:bob');
    expect(
      await page
        .getByRole('row', { name: /service-b/ })
        .first()
        .textContent(),
    ).toMatch(/overridden.*ready/);
    expect(
      await page
        .getByRole('row', { name: /service-a/ })
        .first()
        .textContent(),
    ).toContain('inherited');
    expect(await page.locator(`#curl-${id}`).textContent()).toContain(`baggage: preview-route=${id}`);
    await page.locator('#events-title').waitFor();
    expect(await page.locator('ol.timeline').textContent()).toContain('accepted');

    const previewUrl = (await page.locator('a[data-preview-url]').getAttribute('href')) as string;
    expect(previewUrl).toContain(`${id}.preview.localhost`);
    const preview = await page.context().newPage();
    const answer = await preview.goto(previewUrl);
    expect(answer?.status()).toBe(200);
    expect(await preview.textContent('body')).toContain(imageB('2.0.0'));
    await preview.close();

    await page.getByLabel('Component', { exact: true }).selectOption('service-b');
    await page.getByLabel('Tail lines').fill('20');
    await page.getByRole('button', { name: 'Show logs' }).click();
    await expect
      .poll(() => page.locator('pre[data-logs=service-b]').first().textContent(), { timeout: 10_000 })
      .toContain(`starting service-b (image ${imageB('2.0.0')}`);

    await page.getByRole('link', { name: 'Update overrides' }).click();
    expect(await page.locator('input[name=expected_generation]').inputValue()).toBe('1');
    await page.locator('#override-image-0').fill(imageB('2.1.0'));
    await page.getByRole('button', { name: 'Update' }).click();
    await page.waitForURL(`${stack.apiUrl}/console/compositions/${id}`);
    await expect
      .poll(() => page.locator('#live').textContent(), { timeout: 30_000 })
      .toMatch(/Generation 2 is rolled out/);

    await page.getByRole('link', { name: 'Destroy…' }).click();
    expect(await page.locator('h1').textContent()).toBe('Destroy console-e2e?');
    await page.getByRole('button', { name: 'Destroy console-e2e' }).click();
    await page.waitForURL(`${stack.apiUrl}/console/compositions/${id}`);
    await waitForPhase(admin, id, ['destroyed']);
    await page.locator('#live [data-phase=destroyed]').waitFor({ timeout: 10_000 });
    await page.close();
  });

  it('signs out, ending the session, and is asked to sign in again', async () => {
    const page = await signedIn('bob');
    const session = await page.context().cookies();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${stack.apiUrl}/console/sign-in`);
    // The old cookie, put back, is worth nothing: the session ended on the server.
    await page.context().addCookies(session);
    await page.goto(`${stack.apiUrl}/console/compositions`);
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1);
    await page.close();
  });

  it('sees blockers in the plan and cannot create', async () => {
    const page = await signedIn('bob');
    await page.getByRole('link', { name: 'New composition' }).click();
    await page.getByLabel('Name').fill('blocked');
    await page.getByLabel('Component 1').selectOption('service-b');
    await page.locator('#override-image-0').fill('nginx:1');
    await page.getByRole('button', { name: 'Plan' }).click();
    const blockers = page.getByRole('alert');
    await blockers.waitFor();
    expect(await blockers.textContent()).toContain('service-b');
    expect(await page.getByRole('button', { name: 'Create' }).isDisabled()).toBe(true);
    await page.close();
  });

  it('keeps a stale update from overwriting a newer generation', async () => {
    const created = await createComposition(admin, { 'service-b': { image: imageB('2.0.0') } });
    await waitForPhase(admin, created.id, ['ready']);
    const page = await signedIn('bob');
    await page.goto(`${stack.apiUrl}/console/compositions/${created.id}/edit`);
    const moved = await admin.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: imageB('3.0.0') } },
    });
    expect(moved.status).toBe(202);
    await page.locator('#override-image-0').fill(imageB('2.5.0'));
    await page.getByRole('button', { name: 'Update' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('generation_mismatch');
    expect((await admin.get(`/v1/compositions/${created.id}`)).body.overrides['service-b'].image).toBe(
      imageB('3.0.0'),
    );
    await page.close();
  });

  it('sees phases change on the list without reloading', async () => {
    const page = await signedIn('bob');
    const created = await createComposition(
      admin,
      { 'service-b': { image: imageB('2.0.0') } },
      { name: 'listed' },
    );
    const row = page.locator(`#row-${created.id}`);
    await row.waitFor({ timeout: 10_000 });
    await row.locator('[data-phase=ready]').waitFor({ timeout: 30_000 });
    await page.getByLabel('Phase').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator(`#row-${created.id}`).count()).toBe(0);
    await page.close();
  });
});

describe('pull-request previews', () => {
  async function previewOf(number: number): Promise<{ id: string; composition_id: string | null }> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { body } = await admin.get('/v1/forge/previews?project=demo&limit=200');
      const found = body.items.find(
        (p: { pull_request: { number: number } }) => p.pull_request.number === number,
      );
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no preview for pull request #${number}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('a developer stops a preview and restarts it with a fresh composition; a viewer only reads', async () => {
    const forge = stack.forge;
    if (!forge) throw new Error('the test stack runs the local forge');
    const { pullRequest } = await forge.open({
      repository: 'demo-org/service-b',
      head: 'console-preview',
      labels: ['preview'],
    });
    const preview = await previewOf(pullRequest?.number as number);
    const page = await signedIn('bob');
    await page.getByRole('link', { name: 'Pull-request previews' }).click();
    const row = page.locator(`#preview-${preview.id}`);
    await row.locator('[data-state=ready]').waitFor({ timeout: 45_000 });
    const first = (await admin.get(`/v1/forge/previews/${preview.id}`)).body.composition_id;
    expect(await row.getByRole('link', { name: `composition ${first}` }).count()).toBe(1);

    await row.getByRole('button', { name: /^Stop the preview/ }).click();
    await row.locator('[data-state=stopped]').waitFor({ timeout: 30_000 });
    await row.getByRole('button', { name: /^Restart the preview/ }).click();
    await row.locator('[data-state=ready]').waitFor({ timeout: 45_000 });
    const second = (await admin.get(`/v1/forge/previews/${preview.id}`)).body.composition_id;
    expect(second).not.toBe(first);

    const viewer = await signedIn('carol');
    await viewer.goto(`${stack.apiUrl}/console/pr-previews`);
    await viewer.locator(`#preview-${preview.id}`).waitFor();
    expect(await viewer.getByRole('button', { name: /the preview of/ }).count()).toBe(0);
    await Promise.all([page.close(), viewer.close()]);
  });
});

describe('refusals', () => {
  let evil: Server;
  let evilOrigin: string;

  beforeAll(async () => {
    // Same site as the API (127.0.0.1), other origin: the browser sends the SameSite=Lax session
    // cookie with its form post, so only the Origin and CSRF checks stand in the way.
    evil = createServer((request, response) => {
      const target = decodeURIComponent(new URL(request.url ?? '/', 'http://x').searchParams.get('to') ?? '');
      response.setHeader('content-type', 'text/html');
      response.end(`<form method="post" action="${target}"><button>Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => evil.close(() => resolve())));

  it('a forged cross-origin form post is refused and changes nothing', async () => {
    const created = await createComposition(admin, {}, { name: 'target' });
    const page = await signedIn('bob');
    const target = `${stack.apiUrl}/console/compositions/${created.id}/destroy`;
    await page.goto(`${evilOrigin}/?to=${encodeURIComponent(target)}`);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === target),
      page.getByRole('button', { name: 'Win a prize' }).click(),
    ]);
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain('csrf_rejected');
    const after = await admin.get(`/v1/compositions/${created.id}`);
    expect(after.body.phase).not.toMatch(/destroy/);
    await page.close();
  });

  it('a viewer is offered no change and refused one it forges on our own origin', async () => {
    const created = await createComposition(admin, {}, { name: 'viewed' });
    const page = await signedIn('carol');
    await page.goto(`${stack.apiUrl}/console/compositions/${created.id}`);
    await page.locator('#live').waitFor();
    expect(await page.getByRole('link', { name: 'Destroy…' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Tokens' }).count()).toBe(0);
    const csrf = await page.evaluate(
      async () => ((await (await fetch('/auth/config')).json()) as { csrf_token: string }).csrf_token,
    );
    const status = await page.evaluate(
      async ({ id, token }) =>
        (
          await fetch(`/console/compositions/${id}/destroy`, {
            method: 'POST',
            body: new URLSearchParams({ csrf_token: token }),
          })
        ).status,
      { id: created.id, token: csrf },
    );
    expect(status).toBe(403);
    const tokens = await page.goto(`${stack.apiUrl}/console/tokens`);
    expect(tokens?.status()).toBe(403);
    await page.close();
  });

  it('an Admin issues a machine token, sees it once, and revokes it', async () => {
    const page = await signedIn('alice');
    await page.getByRole('link', { name: 'Tokens' }).click();
    await page.getByLabel('Name').fill('console-ci');
    await page.getByLabel('Role').selectOption('viewer');
    await page.getByLabel('Project').fill('demo');
    await page.getByRole('button', { name: 'Issue' }).click();
    const secret = (await page.locator('#issued-token').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^svc_/);
    const asToken = httpClient(stack.apiUrl, { authorization: `Bearer ${secret}` });
    expect((await asToken.get('/v1/compositions?project=demo')).status).toBe(200);
    await page.goto(`${stack.apiUrl}/console/tokens`);
    expect(await page.content()).not.toContain(secret);
    await page.getByRole('button', { name: /^Revoke console-ci/ }).click();
    await page.waitForURL(`${stack.apiUrl}/console/tokens`);
    expect((await asToken.get('/v1/compositions?project=demo')).status).toBe(401);
    await page.close();
  });

  it('an Admin ends a person’s sign-ins from the People pages, and the person is asked to sign in again', async () => {
    const bob = await signedIn('bob');
    const alice = await signedIn('alice');
    await alice.getByRole('link', { name: 'People' }).click();
    await alice.getByRole('link', { name: 'bob', exact: true }).click();
    await alice.getByRole('heading', { name: 'Sign-ins' }).waitFor();
    expect(await alice.getByRole('row', { name: /browser/ }).count()).toBeGreaterThanOrEqual(1);
    await alice.getByRole('button', { name: 'End every sign-in of bob' }).click();
    await alice.getByText('No sign-in of theirs works now.').waitFor();

    // Bob's open page is sent to sign in by its own next refresh, and so is a fresh visit.
    await bob.waitForURL((url) => url.pathname === '/console/sign-in');
    await bob.goto(`${stack.apiUrl}/console/compositions`);
    expect(new URL(bob.url()).pathname).toBe('/console/sign-in');
    const carol = await signedIn('carol');
    expect(await carol.getByRole('link', { name: 'People' }).count()).toBe(0);
    await carol.goto(`${stack.apiUrl}/console/people`);
    expect(await carol.locator('main').textContent()).toContain('forbidden');
    await Promise.all([alice.close(), bob.close(), carol.close()]);
  });

  it('reads as sentences: a space wherever a template line breaks, counts in words, only what the mode has', async () => {
    const alice = await signedIn('alice');
    const text = async (selector = 'main') =>
      (await alice.locator(selector).first().textContent())?.replace(/\s+/g, ' ');
    await alice.goto(`${stack.apiUrl}/console/people`);
    const people = await text();
    expect(people).toContain(
      'Manage people with svc admin users set, disable and delete; end their sign-ins',
    );
    expect(people).not.toContain('identity provider');

    await alice.goto(`${stack.apiUrl}/console/compositions/new`);
    expect(await text()).toContain('Build id instead of an image: a build CI published');
    expect(await text()).not.toContain('or a build id');

    await alice.goto(`${stack.apiUrl}/console/catalog`);
    expect(await text()).toMatch(/previews at http:\/\/\*\.preview\.localhost:\d+\//);

    // The svc CLI's sign-in, as its browser sees it: the cancel offer, then the consent.
    const cli = await chromium.newPage();
    await cli.goto(authorizeUrl(stack.apiUrl, 'http://127.0.0.1:9/callback', pkce()));
    expect((await cli.locator('main').textContent())?.replace(/\s+/g, ' ')).toContain(
      'Signing in the svc command line? Cancel the sign-in to stop it waiting.',
    );
    await cli.getByLabel('User name').fill('bob');
    await cli.getByLabel('Password').fill('bob-local-password');
    await cli.getByRole('button', { name: 'Sign in' }).click();
    await cli.getByRole('button', { name: 'Allow' }).waitFor();
    expect((await cli.locator('main').textContent())?.replace(/\s+/g, ' ')).toContain(
      'asks to act as user:bob (developer on demo) for up to 30 days',
    );
    await Promise.all([alice.close(), cli.close()]);
  });
});
