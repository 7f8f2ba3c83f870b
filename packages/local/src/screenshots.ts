/**
 * `npm run screenshots`: the console's main pages as PNG files under docs/screenshots/, taken by
 * Debian's Chromium from a fresh in-memory stack in password mode (signed in as alice, the Admin),
 * with a few compositions in different phases. Rerun after changing a page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Auth } from '@svc/core';
import type { Page } from 'playwright-core';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { startSqsEmulator } from './fauxqs.ts';
import { startStack } from './stack.ts';
import { launchChromium } from './testing/chromium.ts';

const output = join(import.meta.dirname, '../../../docs/screenshots');
mkdirSync(output, { recursive: true });

const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
const stack = await startStack({
  port: 0,
  podReadyDelayMs: 300,
  emulators: { dynamodbEndpoint: dynamodb.endpoint, sqsEndpoint: sqs.endpoint },
  resourcePrefix: 'screenshots-',
  authMode: Auth.AuthMode.Password,
  workerSettings: { failureGraceMs: 1500 },
});
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });

const shoot = async (name: string, fullPage = false) => {
  await page.screenshot({ path: join(output, `${name}.png`), fullPage });
  console.log(`docs/screenshots/${name}.png`);
};
const open = async (path: string) => {
  await page.goto(`${stack.apiUrl}${path}`);
};

async function create(target: Page, name: string, image: string): Promise<string> {
  await target.goto(`${stack.apiUrl}/console/compositions/new`);
  await target.getByLabel('Name').fill(name);
  await target.getByLabel('Component 1').selectOption('service-b');
  await target.locator('#override-image-0').fill(image);
  await target.getByRole('button', { name: 'Plan' }).click();
  await target.getByRole('button', { name: 'Create' }).click();
  await target.waitForURL(/\/console\/compositions\/c-/);
  return new URL(target.url()).pathname.split('/').pop() as string;
}

try {
  await open('/console/compositions');
  await shoot('sign-in');
  await page.getByLabel('User name').fill('alice');
  await page.getByLabel('Password').fill('alice-local-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/console\/compositions$/);

  const ready = await create(page, 'checkout-redesign', 'registry.example.com/demo/service-b:2.0.0');
  await create(page, 'broken-image', 'registry.example.com/demo/service-b:2.1.0-missing');
  await create(page, 'slow-start', 'registry.example.com/demo/service-b:2.2.0-slow');
  await open(`/console/compositions/${ready}`);
  await page.locator('#live [data-phase=ready]').waitFor({ timeout: 30_000 });
  await page.getByLabel('Component', { exact: true }).selectOption('service-b');
  await page.getByRole('button', { name: 'Show logs' }).click();
  await page.locator('pre[data-logs=service-b]').first().waitFor();
  await shoot('composition', true);
  // A phone's width, tall enough for the facts down to the curl line: each value under its label.
  await page.setViewportSize({ width: 390, height: 1060 });
  await page.evaluate('window.scrollTo(0, 0)');
  await shoot('composition-phone');
  await page.setViewportSize({ width: 1280, height: 860 });

  await open('/console/compositions');
  await page.locator('[data-phase=failed]').waitFor({ timeout: 30_000 });
  await shoot('compositions');
  // A phone's width: each row a card.
  await page.setViewportSize({ width: 390, height: 844 });
  await shoot('compositions-phone', true);
  await page.setViewportSize({ width: 1280, height: 860 });

  await open('/console/compositions/new');
  await page.getByLabel('Name').fill('search-tuning');
  await page.getByLabel('Component 1').selectOption('service-c');
  await page.locator('#override-image-0').fill('registry.example.com/demo/service-c:5.1.0');
  await page.getByLabel('TTL').fill('2h');
  await page.getByRole('button', { name: 'Plan' }).click();
  await page.locator('#plan').waitFor();
  await shoot('create-plan', true);

  await open('/console/catalog');
  await shoot('catalog');
} finally {
  await browser.close();
  await stack.stop();
  await Promise.all([dynamodb.stop(), sqs.stop()]);
}
