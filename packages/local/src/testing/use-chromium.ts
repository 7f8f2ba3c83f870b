import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { launchChromium } from './chromium.ts';

interface FileChromium {
  /** A context of its own (cookies, storage), closed after the test that opened it. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a context of its own, closed after the test that opened it. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
}

/**
 * One Chromium for the test file, launched before its tests and closed after them (a launch costs
 * more than a test's work), with a fresh context per use. Each test's contexts are closed when it
 * ends: a console page left open keeps refreshing every few seconds, costing the browser, the API
 * and DynamoDB Local work through every later test of the file.
 */
export function useChromium(): FileChromium {
  let browser: Browser | undefined;
  const open = new Set<BrowserContext>();
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterEach(async () => {
    const closing = [...open];
    open.clear();
    await Promise.all(closing.map((context) => context.close()));
  });
  afterAll(() => browser?.close());
  const newContext = async (options: BrowserContextOptions = {}) => {
    if (!browser) throw new Error('useChromium: the browser starts in beforeAll; open contexts in tests');
    const context = await browser.newContext(options);
    open.add(context);
    return context;
  };
  return { newContext, newPage: async (options) => (await newContext(options)).newPage() };
}
