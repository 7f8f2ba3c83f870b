import { SettingsError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { appFromEnvironment } from './runtime.ts';

const env = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'svc-table',
  JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-jobs',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-jobs-dlq',
  PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
  EKS_CLUSTER_NAME: 'staging',
  CURSOR_KEY: 'test-cursor-key-of-at-least-32-characters',
  AUTH_SETTINGS: JSON.stringify({ public_origin: 'https://svc.acme.io' }),
};

describe('appFromEnvironment', () => {
  it('refuses to start without an explicit auth mode', () => {
    expect(() => appFromEnvironment(env, { allowDev: true })).toThrow(SettingsError);
    expect(() => appFromEnvironment({ ...env, AUTH_MODE: 'open' }, { allowDev: true })).toThrow(/AUTH_MODE/);
  });

  it('never runs dev mode where dev is not allowed (Lambda)', () => {
    expect(() => appFromEnvironment({ ...env, AUTH_MODE: 'dev' }, { allowDev: false })).toThrow(
      /local development only/,
    );
  });

  it('names missing environment variables', () => {
    expect(() =>
      appFromEnvironment({ AUTH_MODE: 'token', AUTH_SETTINGS: env.AUTH_SETTINGS }, { allowDev: false }),
    ).toThrow(/TABLE_NAME/);
    const { DEAD_LETTER_QUEUE_URL: _, ...withoutDeadLetters } = env;
    expect(() =>
      appFromEnvironment({ ...withoutDeadLetters, AUTH_MODE: 'token' }, { allowDev: false }),
    ).toThrow(/DEAD_LETTER_QUEUE_URL/);
  });

  it('names every bad variable of every part in one error, never a value', () => {
    const secret = 'a-cursor-key-too-short';
    let error: unknown;
    try {
      appFromEnvironment(
        { AUTH_MODE: 'token', CURSOR_KEY: secret, FORGE_APP_ID: '42', PREVIEW_URL_TEMPLATE: 'https://x/' },
        { allowDev: false },
      );
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SettingsError);
    expect((error as SettingsError).problems.map((p) => p.variable)).toEqual([
      'AWS_REGION',
      'TABLE_NAME',
      'JOB_QUEUE_URL',
      'DEAD_LETTER_QUEUE_URL',
      'PREVIEW_URL_TEMPLATE',
      'CURSOR_KEY',
      'AUTH_SETTINGS.public_origin',
      'KUBECONFIG',
      'FORGE_PRIVATE_KEY',
      'FORGE_WEBHOOK_SECRET',
    ]);
    expect(String(error)).not.toContain(secret);
  });

  it('refuses a shared-token mode without its secret, and oidc without its provider', () => {
    expect(() => appFromEnvironment({ ...env, AUTH_MODE: 'shared-token' }, { allowDev: false })).toThrow(
      /AUTH_SHARED_TOKEN/,
    );
    expect(() => appFromEnvironment({ ...env, AUTH_MODE: 'oidc' }, { allowDev: false })).toThrow(/oidc/);
    expect(() =>
      appFromEnvironment(
        { ...env, AUTH_MODE: 'password', AUTH_SETTINGS: '{"limits":{"x":1}}' },
        { allowDev: false },
      ),
    ).toThrow(/AUTH_SETTINGS/);
  });

  it('builds the app in token mode from a complete environment', async () => {
    const { app } = appFromEnvironment({ ...env, AUTH_MODE: 'token' }, { allowDev: false });
    const response = await app.request('/v1/projects');
    expect(response.status).toBe(401);
  });
});
