/**
 * Debian's Chromium driven by playwright-core: no browser download. As root it needs --no-sandbox;
 * the other flags stop Chromium's own connections, which a closed network refuses many at a time.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: apt-get install -y chromium (or set CHROMIUM_PATH). npm test installs it where it can.`,
    );
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
