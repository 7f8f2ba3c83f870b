import { parseEnvironment } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { GitHubEnvironment } from './settings.ts';
import { forgeWiring } from './wiring.ts';

const key = '-----BEGIN RSA PRIVATE KEY-----\\nMIIB\\n-----END RSA PRIVATE KEY-----';
const secret = 'webhook-secret-of-some-length';
const parse = (env: Record<string, string>) => parseEnvironment(GitHubEnvironment, env);

describe('the github part of the settings', () => {
  it('is no app and no webhook check when nothing is set, or only empty placeholders', () => {
    const none = { app: null, webhookSecrets: null };
    expect(parse({})).toEqual(none);
    expect(parse({ FORGE_APP_ID: '', FORGE_PRIVATE_KEY: '', FORGE_WEBHOOK_SECRET_PREVIOUS: '' })).toEqual(
      none,
    );
    expect(forgeWiring(none)).toEqual({
      forge: null,
      verify: null,
      configuration: { app_id: null, webhook_secret: false, previous_webhook_secret: false },
    });
  });

  it('checks deliveries with the webhook secrets alone, as the webhook function is given them', () => {
    const settings = parse({ FORGE_WEBHOOK_SECRET: secret, FORGE_WEBHOOK_SECRET_PREVIOUS: `${secret}-old` });
    expect(settings).toEqual({ app: null, webhookSecrets: { current: secret, previous: `${secret}-old` } });
    const wiring = forgeWiring(settings);
    expect(wiring.forge).toBeNull();
    expect(wiring.verify).toBeTypeOf('function');
  });

  it('reads the app with its key (newlines written \\n), API URL and write interval', () => {
    const settings = parse({
      FORGE_APP_ID: '42',
      FORGE_PRIVATE_KEY: key,
      FORGE_WEBHOOK_SECRET: secret,
      FORGE_API_URL: 'http://127.0.0.1:8083',
      FORGE_WRITE_INTERVAL_MS: '250',
    });
    expect(settings.app).toEqual({
      appId: '42',
      privateKey: key.replaceAll('\\n', '\n'),
      apiUrl: 'http://127.0.0.1:8083',
      writeIntervalMs: 250,
    });
    expect(forgeWiring(settings).configuration).toEqual({
      app_id: '42',
      webhook_secret: true,
      previous_webhook_secret: false,
    });
    expect(
      parse({ FORGE_APP_ID: '42', FORGE_PRIVATE_KEY: key, FORGE_WEBHOOK_SECRET: secret }).app
        ?.writeIntervalMs,
    ).toBe(1000);
  });

  it('names what an app lacks or has malformed, never quoting a secret', () => {
    expect(() => parse({ FORGE_APP_ID: '42' })).toThrow(
      'invalid environment: FORGE_PRIVATE_KEY is needed with FORGE_APP_ID; FORGE_WEBHOOK_SECRET is needed with FORGE_APP_ID',
    );
    const leaked = 'not-a-pem-but-a-secret';
    let message = '';
    try {
      parse({ FORGE_APP_ID: 'app', FORGE_PRIVATE_KEY: leaked, FORGE_WEBHOOK_SECRET: 'short' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/FORGE_APP_ID must be a numeric app id/);
    expect(message).toMatch(/FORGE_PRIVATE_KEY must be a PEM private key/);
    expect(message).toMatch(/FORGE_WEBHOOK_SECRET must be at least 16 characters/);
    expect(message).not.toContain(leaked);
    expect(message).not.toContain('short');
  });
});
