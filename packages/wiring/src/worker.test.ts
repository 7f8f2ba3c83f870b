import { type Cluster, type Messaging, parseEnvironment } from '@svc/core';
import { countingMetrics } from '@svc/worker';
import { describe, expect, it } from 'vitest';
import { WorkerSettings } from './settings.ts';
import { wireWorker } from './worker.ts';

/** A worker's environment on emulators nothing listens on: nothing here calls AWS. */
const environment = {
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'svc-table',
  JOB_QUEUE_URL: 'http://127.0.0.1:9/000000000000/svc-jobs',
  PREVIEW_URL_TEMPLATE: 'http://{id}.{domain}:8082/',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:9',
  SQS_ENDPOINT: 'http://127.0.0.1:9',
  KUBECONFIG: '/nonexistent/kubeconfig',
  CURSOR_KEY: 'c'.repeat(48),
  PREVIEW_QUEUE_PREFIX: 'svc-staging-preview-',
};

const adapters = () => ({
  // A cluster only ever asked whether it is healthy.
  cluster: () => ({ health: { name: 'cluster', check: async () => {} } }) as unknown as Cluster.ClusterPort,
  messaging: () => ({}) as Messaging.MessagingPort,
  log: () => {},
  workerMetrics: countingMetrics(),
});

describe('wireWorker', () => {
  it('adds the worker’s timings, its stage’s queue prefix and its counts to the services', () => {
    const settings = parseEnvironment(WorkerSettings, environment);
    const given = adapters();
    const worker = wireWorker(settings, { ...given, timings: { recheckDelaySeconds: 1 } });
    expect(worker.settings).toMatchObject({
      queuePrefix: 'svc-staging-preview-',
      recheckDelaySeconds: 1,
      maxReceiveCount: 5,
    });
    expect(worker.metrics).toBe(given.workerMetrics);
    expect(worker.aws.names.jobQueueUrl).toBe(environment.JOB_QUEUE_URL);
  });

  it('gives the routing check the stage’s rule on private addresses', async () => {
    const refusing = wireWorker(parseEnvironment(WorkerSettings, environment), adapters());
    expect((await refusing.probe('http://127.0.0.1:9/')).error).toMatch(/loopback, link-local or private/);
    const allowing = wireWorker(
      parseEnvironment(WorkerSettings, { ...environment, PREVIEW_PRIVATE_ADDRESSES: 'allow' }),
      adapters(),
    );
    // Let through to the address, where nothing listens.
    expect((await allowing.probe('http://127.0.0.1:9/')).error).not.toMatch(
      /loopback, link-local or private/,
    );
  });
});
