import { createHmac } from 'node:crypto';
import { type Cluster, type Jobs, type Messaging, parseEnvironment } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { wireServices, wireWebhook } from './services.ts';
import { ServiceSettings, WebhookSettings } from './settings.ts';

const environment = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'svc-table',
  JOB_QUEUE_URL: 'http://127.0.0.1:9/000000000000/svc-jobs',
  DEAD_LETTER_QUEUE_URL: 'http://127.0.0.1:9/000000000000/svc-jobs-dlq',
  PREVIEW_URL_TEMPLATE: 'http://{id}.{domain}:8082/',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  KUBECONFIG: '/nonexistent/kubeconfig',
  CURSOR_KEY: 'c'.repeat(48),
  AUTH_MODE: 'dev',
  PREVIEW_NAMESPACES: 'staging,qa',
  FORGE_APP_ID: '42',
  FORGE_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----',
  FORGE_WEBHOOK_SECRET: 'a-webhook-secret-of-length',
};
const settings = parseEnvironment(ServiceSettings({ allowDev: true }), environment);

/** A cluster that is only ever asked whether it is healthy. */
const cluster = (seen: unknown[]) => (where: unknown) => {
  seen.push(where);
  return { health: { name: 'cluster', check: async () => {} } } as unknown as Cluster.ClusterPort;
};

describe('wireServices', () => {
  it('builds what the API and the worker run on from the settings and the process’s adapters', () => {
    const seen: unknown[] = [];
    const messaging = {} as Messaging.MessagingPort;
    const services = wireServices(settings, {
      cluster: cluster(seen),
      messaging: (aws) => {
        seen.push(aws.settings);
        return messaging;
      },
      log: () => {},
      timeouts: { connectionMs: 5000, requestMs: 20_000 },
      forgeSettings: { pollSeconds: 1 },
    });
    expect(seen).toEqual([
      { kubeconfig: '/nonexistent/kubeconfig' },
      {
        region: 'eu-west-1',
        dynamodbEndpoint: 'http://127.0.0.1:9',
        sqsEndpoint: 'http://127.0.0.1:9',
        timeouts: { connectionMs: 5000, requestMs: 20_000 },
      },
    ]);
    expect(services.messaging).toBe(messaging);
    expect(services.previewUrl('c-1', 'preview.localhost', 'local')).toBe(
      'http://c-1.preview.localhost:8082/',
    );
    expect(services.manifestLimits).toMatchObject({
      namespaces: { allowed: ['staging', 'qa'], serviceNamespace: 'svc-system' },
      clusters: ['local'],
    });
    expect(services.health.map((check) => check.name)).toEqual(['dynamodb', 'sqs', 'cluster:local']);
    expect(services.deadLetters).not.toBeNull();
    expect(services.forge).not.toBeNull();
    expect(services.verify).toBeTypeOf('function');
    expect(services.forgeConfiguration).toEqual({
      app_id: '42',
      webhook_secret: true,
      previous_webhook_secret: false,
    });
    expect(services.forgeSettings).toMatchObject({ pollSeconds: 1, dispatchGraceSeconds: 30 });
    expect(services.build).toEqual({ release: 'dev', commit: 'unknown' });
    expect(services.aws.names.jobQueueUrl).toBe(environment.JOB_QUEUE_URL);
  });

  it('wraps the job queue and observes compositions where told, leaving the built stores as they are', async () => {
    const sent: string[] = [];
    const services = wireServices(settings, {
      cluster: cluster([]),
      messaging: () => null,
      log: () => {},
      clock: { now: () => new Date('2026-11-26T00:00:00Z') },
      wrapJobs: (jobs): Jobs.JobQueue => ({ ...jobs, send: async (job) => void sent.push(job.kind) }),
      metrics: { count: () => {}, milliseconds: () => {} },
    });
    await services.jobs.send({ kind: 'step', composition_id: 'c-1', operation_id: 'op-1', step: 'apply' });
    expect(sent).toEqual(['step']);
    expect(services.aws.stores.jobs).not.toBe(services.jobs);
    expect(services.compositions).not.toBe(services.aws.stores.compositions);
    expect(services.clock.now().toISOString()).toBe('2026-11-26T00:00:00.000Z');
  });
});

describe('the clusters', () => {
  const several = parseEnvironment(ServiceSettings({ allowDev: true }), {
    ...environment,
    KUBECONFIG: undefined,
    CLUSTERS: JSON.stringify({
      'local-2': { kubeconfig: '/k2', preview_url: 'http://{id}.{domain}:8084/' },
      local: { kubeconfig: '/k1', context: 'local' },
      eu: { eks_cluster: 'prod-eu', region: 'eu-central-1' },
    }),
  });

  it('builds each cluster once, knows them by name, probes each, and sends a preview URL to its own gateway', () => {
    const seen: unknown[] = [];
    const services = wireServices(several, { cluster: cluster(seen), messaging: () => null, log: () => {} });
    expect(seen).toEqual([
      { kubeconfig: '/k2' },
      { kubeconfig: '/k1', context: 'local' },
      { clusterName: 'prod-eu', region: 'eu-central-1' },
    ]);
    expect(services.clusters.names).toEqual(['eu', 'local', 'local-2']);
    expect(services.clusters.lookup('local-2').known).toBe(true);
    expect(services.clusters.lookup('us')).toMatchObject({ known: false });
    expect(services.manifestLimits.clusters).toEqual(['eu', 'local', 'local-2']);
    expect(services.health.map((check) => check.name)).toEqual([
      'dynamodb',
      'sqs',
      'cluster:eu',
      'cluster:local',
      'cluster:local-2',
    ]);
    expect(services.previewUrl('c-1', 'preview.localhost', 'local-2')).toBe(
      'http://c-1.preview.localhost:8084/',
    );
    expect(services.previewUrl('c-1', 'preview.localhost', 'local')).toBe(
      'http://c-1.preview.localhost:8082/',
    );
  });
});

describe('wireWebhook', () => {
  it('checks signatures with the webhook secrets alone', async () => {
    const { FORGE_APP_ID: _a, FORGE_PRIVATE_KEY: _k, CURSOR_KEY: _c, ...webhook } = environment;
    const deps = wireWebhook(parseEnvironment(WebhookSettings, webhook), { log: () => {} });
    const signed = (secret: string) => `sha256=${createHmac('sha256', secret).update('{}').digest('hex')}`;
    expect(await deps.verify?.('{}', signed(environment.FORGE_WEBHOOK_SECRET))).toBe(true);
    expect(await deps.verify?.('{}', signed('another-secret-entirely'))).toBe(false);
    expect(deps.forgeSettings.pollSeconds).toBe(5);
  });
});
