import { SettingsError } from '@svc/core';
import { describe, expect, it } from 'vitest';
import {
  LocalStackSettings,
  NodeServiceSettings,
  ScriptSettings,
  ServiceSettings,
  settingsFromEnvironment,
  WebhookSettings,
  WorkerSettings,
} from './settings.ts';

/** A deployed API's environment, as infra/settings.ts sets it and SST's links fill it. */
const api = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'svc-table',
  JOB_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-jobs',
  DEAD_LETTER_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/svc-jobs-dlq',
  PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
  EKS_CLUSTER_NAME: 'staging',
  CURSOR_KEY: 'c'.repeat(48),
  AUTH_MODE: 'token',
  AUTH_SETTINGS: JSON.stringify({ public_origin: 'https://svc.acme.io' }),
  MESSAGE_TOPICS: '["orders"]',
  SVC_RELEASE: '1.2.0',
  SVC_COMMIT: 'abc1234',
};

function problemsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (error) {
    if (error instanceof SettingsError) return error.problems.map((p) => p.variable);
    throw error;
  }
  return [];
}

describe('ServiceSettings', () => {
  it('reads every part of the API’s environment in one parse', () => {
    const settings = settingsFromEnvironment(ServiceSettings({ allowDev: false }), { ...api });
    expect(settings.aws).toMatchObject({
      client: { region: 'eu-west-1' },
      names: { tableName: 'svc-table', deadLetterQueueUrl: api.DEAD_LETTER_QUEUE_URL },
      cursorKey: api.CURSOR_KEY,
      manifestLimits: {
        messageTopics: ['orders'],
        namespaces: { allowed: null, serviceNamespace: 'svc-system' },
        // The template leaves the domain to the baseline: no domain is allowed until one is listed.
        previewDomains: [],
      },
      previewPrivateAddresses: false,
      previewQueuePrefix: 'preview-',
      build: { release: '1.2.0', commit: 'abc1234' },
    });
    expect(settings.auth).toMatchObject({ mode: 'token', publicOrigin: 'https://svc.acme.io' });
    expect(settings.kube).toEqual({
      clusters: [
        {
          name: 'staging',
          where: { clusterName: 'staging', region: 'eu-west-1' },
          previewUrlTemplate: null,
          access: { projects: null, previewNamespaces: null, previewDomains: null },
        },
      ],
    });
    expect(settings.github).toEqual({ app: null, webhookSecrets: null });
  });

  it('allows previews on the domains listed, else on the one the URL template names; private addresses only when told', () => {
    const read = (env: Record<string, string>) =>
      settingsFromEnvironment(ServiceSettings({ allowDev: false }), { ...api, ...env }).aws;
    expect(
      read({ PREVIEW_URL_TEMPLATE: 'https://{id}.Previews.Acme.io/' }).manifestLimits.previewDomains,
    ).toEqual(['previews.acme.io']);
    expect(read({ PREVIEW_DOMAINS: 'a.example.com,B.example.com' }).manifestLimits.previewDomains).toEqual([
      'a.example.com',
      'b.example.com',
    ]);
    expect(read({ PREVIEW_PRIVATE_ADDRESSES: 'allow' }).previewPrivateAddresses).toBe(true);
    const bad = { ...api, PREVIEW_PRIVATE_ADDRESSES: 'yes' };
    expect(problemsOf(() => settingsFromEnvironment(ServiceSettings({ allowDev: false }), bad))).toEqual([
      'PREVIEW_PRIVATE_ADDRESSES',
    ]);
  });

  it('names every bad variable of every part in one error', () => {
    const { AWS_REGION: _, ...withoutRegion } = api;
    expect(
      problemsOf(() =>
        settingsFromEnvironment(ServiceSettings({ allowDev: false }), {
          ...withoutRegion,
          TABLE_NAME: 'x',
          AUTH_MODE: 'dev',
          FORGE_APP_ID: '42',
        }),
      ),
    ).toEqual([
      'AWS_REGION',
      'TABLE_NAME',
      'AUTH_MODE',
      'CLUSTERS',
      'FORGE_PRIVATE_KEY',
      'FORGE_WEBHOOK_SECRET',
    ]);
  });

  it('asks each entry for what it reads: the worker no auth mode, the webhook no cluster or cursor key', () => {
    const { AUTH_MODE: _a, AUTH_SETTINGS: _s, DEAD_LETTER_QUEUE_URL: _d, ...worker } = api;
    expect(settingsFromEnvironment(WorkerSettings, { ...worker })).not.toHaveProperty('auth');
    expect(
      problemsOf(() => settingsFromEnvironment(WorkerSettings, { ...worker, CURSOR_KEY: undefined })),
    ).toEqual(['CURSOR_KEY']);
    const { EKS_CLUSTER_NAME: _e, CURSOR_KEY: _c, ...webhook } = worker;
    const webhookSettings = settingsFromEnvironment(WebhookSettings, {
      ...webhook,
      FORGE_WEBHOOK_SECRET: 'a-webhook-secret-of-length',
    });
    expect(Object.keys(webhookSettings).sort()).toEqual(['aws', 'github']);
    expect(webhookSettings.aws.cursorKey).toBeNull();
    expect(webhookSettings.github.webhookSecrets).toEqual({ current: 'a-webhook-secret-of-length' });
    expect(Object.keys(settingsFromEnvironment(ScriptSettings, { ...webhook }))).toEqual(['aws']);
    expect(problemsOf(() => settingsFromEnvironment(ScriptSettings, {}))).toEqual([
      'AWS_REGION',
      'TABLE_NAME',
      'JOB_QUEUE_URL',
      'PREVIEW_URL_TEMPLATE',
    ]);
  });

  it('allows dev mode only where asked (the API on Node, the local stack)', () => {
    const dev = { ...api, AUTH_MODE: 'dev', AUTH_SETTINGS: '' };
    expect(settingsFromEnvironment(ServiceSettings({ allowDev: true }), dev).auth.mode).toBe('dev');
    expect(problemsOf(() => settingsFromEnvironment(ServiceSettings({ allowDev: false }), dev))).toEqual([
      'AUTH_MODE',
    ]);
  });
});

describe('settingsFromEnvironment on Lambda', () => {
  // SST's links as a function reads them (tests/lambda.test.ts goes through SST's own Resource).
  const links = { CursorKey: { value: 'l'.repeat(48) } };

  it('fills the linked secrets in before it parses', () => {
    const { CURSOR_KEY: _, ...linked } = api;
    const env: Record<string, string | undefined> = { ...linked, SVC_SECRETS: '{"CURSOR_KEY":"CursorKey"}' };
    expect(settingsFromEnvironment(ServiceSettings({ allowDev: false }), env, links).aws.cursorKey).toBe(
      'l'.repeat(48),
    );
  });
});

describe('the server part', () => {
  it('gives the API on Node its host and port, by default 127.0.0.1:8081, in the same parse', () => {
    expect(settingsFromEnvironment(NodeServiceSettings, { ...api }).server).toEqual({
      host: '127.0.0.1',
      port: 8081,
    });
    const settings = settingsFromEnvironment(NodeServiceSettings, { ...api, HOST: '0.0.0.0', PORT: '9000' });
    expect(settings.server).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(
      problemsOf(() =>
        settingsFromEnvironment(NodeServiceSettings, { ...api, PORT: '70000', TABLE_NAME: '' }),
      ),
    ).toEqual(['TABLE_NAME', 'PORT']);
  });

  it('gives npm start its ports, the pods’ delay and its state directory, each checked', () => {
    expect(settingsFromEnvironment(LocalStackSettings, {}).server).toEqual({
      host: '127.0.0.1',
      port: 8081,
      gatewayPort: 8082,
      forgePort: 8083,
      podReadyDelayMs: 1000,
      stateDir: '.svc',
    });
    const bad = {
      PORT: 'http',
      GATEWAY_PORT: '0',
      FORGE_PORT: '65536',
      POD_READY_DELAY_MS: '-5',
      SVC_STATE_DIR: '',
    };
    expect(problemsOf(() => settingsFromEnvironment(LocalStackSettings, bad))).toEqual([
      'PORT',
      'GATEWAY_PORT',
      'FORGE_PORT',
      'POD_READY_DELAY_MS',
      'SVC_STATE_DIR',
    ]);
  });
});
