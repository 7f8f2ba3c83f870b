import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EKSClient, ResourceNotFoundException } from '@aws-sdk/client-eks';
import { type Cluster, Dependency, DependencyUnavailableError } from '@svc/core';
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';
import { eksKubeConfigSource } from './eks.ts';

const retry = { attempts: 3, baseDelayMs: 1 };
let local: LocalCluster;
let cluster: Cluster.ClusterPort;

async function fault(body: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${local.url}/_faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

async function hits(): Promise<number> {
  const { faults } = (await (await fetch(`${local.url}/_faults`)).json()) as { faults: { hits: number }[] };
  return faults.reduce((sum, f) => sum + f.hits, 0);
}

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  );
}

const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' };

beforeAll(async () => {
  local = await startLocalCluster({ gatewayPort: 0 });
  cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(local.kubeconfig())), { retry });
});

afterEach(async () => {
  await fetch(`${local.url}/_faults`, { method: 'DELETE' });
});

afterAll(() => local.stop());

describe('the Kubernetes adapter', () => {
  it.each([429, 500, 503])(
    'raises DependencyUnavailableError when the API server keeps answering %i, after retrying',
    async (status) => {
      await fault({ type: 'fail', status });
      const error = await failure(cluster.getDeployment('default', 'web'));
      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect(error).toMatchObject({ dependency: Dependency.Cluster });
      expect((error as Error).message).toMatch(new RegExp(`^HTTP ${status} [A-Za-z]+$`));
      expect(await hits()).toBe(retry.attempts);
    },
  );

  it('retries a passing outage and then answers', async () => {
    await fault({ type: 'fail', status: 503, count: 2 });
    expect(await cluster.getDeployment('default', 'web')).toBeNull();
  });

  it('leaves not found to be an answer', async () => {
    await fault({ type: 'fail', status: 404, match: { path: '/apis/gateway.networking.k8s.io' } });
    expect(await cluster.servedResources('gateway.networking.k8s.io/v1')).toBeNull();
  });

  it('leaves an RBAC refusal to the caller, unretried', async () => {
    await fault({ type: 'deny', match: { verb: 'delete', resource: 'deployments' } });
    const error = await failure(cluster.delete(deployment));
    expect(error).not.toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ code: 403 });
    expect(await hits()).toBe(1);
  });

  it('raises DependencyUnavailableError when nothing listens at the API server address', async () => {
    const stopped = await startLocalCluster({ gatewayPort: 0 });
    const config = kubeConfigFromString(stopped.kubeconfig());
    await stopped.stop();
    const unreachable = kubeCluster(fixedKubeConfig(config), { retry });
    const error = await failure(unreachable.serverVersion());
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).message).toBe('fetch failed (ECONNREFUSED)');
    expect(await failure(unreachable.health.check(AbortSignal.timeout(2000)))).toBeInstanceOf(
      DependencyUnavailableError,
    );
  });
});

describe('an API server that echoes what it was sent', () => {
  /** A hostile server, or a proxy before one, cannot be caused with the local cluster: this one answers so. */
  let echo: Server;
  let status = 503;
  beforeAll(async () => {
    echo = createServer((request, response) => {
      request.resume().on('end', () => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({
            kind: 'Status',
            apiVersion: 'v1',
            status: 'Failure',
            reason: status === 422 ? 'Invalid' : 'ServiceUnavailable',
            message: `you sent ${request.headers.authorization}`,
            details: {
              causes: [
                {
                  reason: 'FieldValueInvalid',
                  field: 'metadata.name',
                  message: request.headers.authorization,
                },
                { reason: `${request.headers.authorization}`, field: 'spec' },
              ],
            },
            code: status,
          }),
        );
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  const echoed = () =>
    kubeCluster(
      fixedKubeConfig(
        kubeConfigFromString(
          [
            'apiVersion: v1',
            'kind: Config',
            'clusters:',
            `- name: echo`,
            `  cluster: { server: "http://127.0.0.1:${(echo.address() as AddressInfo).port}", insecure-skip-tls-verify: true }`,
            'users: [ { name: echo, user: { token: the-cluster-bearer-token } } ]',
            'contexts: [ { name: echo, context: { cluster: echo, user: echo } } ]',
            'current-context: echo',
          ].join('\n'),
        ),
      ),
      { retry },
    );

  it('says the status and the reason of a failure, never the body that quotes our token', async () => {
    status = 503;
    const error = await failure(echoed().serverVersion());
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(String(error)).toBe(
      'DependencyUnavailableError: HTTP 503 ServiceUnavailable (metadata.name: FieldValueInvalid)',
    );
    expect(String((error as Error).cause)).not.toContain('the-cluster-bearer-token');
  });

  it('leaves a refusal to the caller by its status, reason and causes’ words, never their prose', async () => {
    status = 422;
    const refused = await failure(
      echoed().apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } }),
    );
    expect(refused).not.toBeInstanceOf(DependencyUnavailableError);
    expect(refused).toMatchObject({
      code: 422,
      reason: 'Invalid',
      causes: ['metadata.name: FieldValueInvalid'],
    });
    expect(String(refused)).toBe(
      'KubernetesAnswerError: HTTP 422 Invalid (metadata.name: FieldValueInvalid)',
    );
    expect(JSON.stringify(refused)).not.toContain('the-cluster-bearer-token');
  });
});

describe('the Kubernetes adapter on EKS', () => {
  /** EKS outages cannot be caused on demand, so a local server answers DescribeCluster as EKS does. */
  let eks: Server;
  let answer = { status: 503, type: '' };
  const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

  beforeAll(async () => {
    eks = createServer((request, response) => {
      request.resume().on('end', () => {
        response.writeHead(answer.status, {
          'content-type': 'application/json',
          ...(answer.type ? { 'x-amzn-errortype': answer.type } : {}),
        });
        response.end(JSON.stringify({ message: 'from the test' }));
      });
    });
    await new Promise<void>((resolve) => eks.listen(0, '127.0.0.1', resolve));
  });

  afterAll(() => new Promise<void>((resolve) => eks.close(() => resolve())));

  const clusterOnEks = () =>
    kubeCluster(
      eksKubeConfigSource({
        clusterName: 'previews',
        region: 'eu-west-1',
        eks: new EKSClient({
          region: 'eu-west-1',
          endpoint: `http://127.0.0.1:${(eks.address() as AddressInfo).port}`,
          credentials,
          maxAttempts: 1,
        }),
        credentials: async () => credentials,
      }),
      { retry },
    );

  it('raises DependencyUnavailableError when EKS fails to describe the cluster', async () => {
    answer = { status: 503, type: '' };
    const error = await failure(clusterOnEks().serverVersion());
    expect(error).toMatchObject({ name: 'DependencyUnavailableError', dependency: Dependency.Cluster });
  });

  it('leaves an unknown cluster to be a configuration error', async () => {
    answer = { status: 404, type: 'ResourceNotFoundException' };
    expect(await failure(clusterOnEks().serverVersion())).toBeInstanceOf(ResourceNotFoundException);
  });
});
