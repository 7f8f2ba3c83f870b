// The fault endpoint (/_faults on the API server's port), exercised as other packages' tests use it.

import { AppsV1Api, CoreV1Api, type V1Deployment, Watch } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayFetch } from '../src/index.ts';
import { api, deploymentManifest, eventually, startTestCluster, type TestCluster } from './helpers.ts';

let t: TestCluster;
let core: CoreV1Api;

beforeAll(async () => {
  t = await startTestCluster();
  core = t.kc.makeApiClient(CoreV1Api);
});
afterEach(async () => {
  await api(t.cluster, 'DELETE', '/_faults');
});
afterAll(() => t.stop());

const fault = async (body: unknown) => {
  const r = await api(t.cluster, 'POST', '/_faults', body);
  expect(r.status).toBe(201);
  return r.json as { id: string };
};

async function code(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

describe('fault endpoint', () => {
  it('fails the next N matching requests, then recovers', async () => {
    await fault({ type: 'fail', status: 503, count: 2, match: { verb: 'list', resource: 'configmaps' } });
    expect(await code(core.listNamespacedConfigMap({ namespace: 'default' }))).toBe(503);
    expect(await code(core.readNamespace({ name: 'default' }))).toBe(200);
    expect(await code(core.listNamespacedConfigMap({ namespace: 'default' }))).toBe(503);
    expect(await code(core.listNamespacedConfigMap({ namespace: 'default' }))).toBe(200);
    expect((await api(t.cluster, 'GET', '/_faults')).json).toEqual({ faults: [] });
  });

  it('fails a percentage of requests with 429 and Retry-After until removed', async () => {
    const { id } = await fault({ type: 'fail', status: 429, percent: 100 });
    const r = await api(t.cluster, 'GET', '/api/v1/namespaces');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.json).toMatchObject({ kind: 'Status', reason: 'TooManyRequests', code: 429 });
    const listed = (await api(t.cluster, 'GET', '/_faults')).json;
    expect(listed.faults[0]).toMatchObject({ id, type: 'fail', status: 429, hits: 1 });
    expect((await api(t.cluster, 'DELETE', `/_faults/${id}`)).status).toBe(200);
    expect((await api(t.cluster, 'GET', '/api/v1/namespaces')).status).toBe(200);
    expect((await api(t.cluster, 'GET', '/healthz')).status).toBe(200);
  });

  it('adds latency', async () => {
    await fault({
      type: 'latency',
      ms: 150,
      count: 1,
      match: { method: 'GET', path: '/api/v1/namespaces/default/configmaps' },
    });
    const started = Date.now();
    await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('closes watch streams, and compacts history so old resourceVersions get 410', async () => {
    const list = await core.listNamespacedConfigMap({ namespace: 'default' });
    let closed = false;
    const events: { type: string; object: { code?: number } }[] = [];
    await new Watch(t.kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata?.resourceVersion ?? '' },
      (type, object) => events.push({ type, object }),
      () => {
        closed = true;
      },
    );
    const r = await api(t.cluster, 'POST', '/_faults', { type: 'close-watches', resource: 'configmaps' });
    expect(r.json).toMatchObject({ closed: 1 });
    await eventually(() => (closed ? true : undefined));

    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'after-list' } },
    });
    await fault({ type: 'compact' });
    await new Watch(t.kc).watch(
      '/api/v1/namespaces/default/configmaps',
      { resourceVersion: list.metadata?.resourceVersion ?? '' },
      (type, object) => events.push({ type, object }),
      () => {},
    );
    await eventually(() => (events.length > 0 ? true : undefined));
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
  });

  it('freezes a workload in Pending until the freeze is lifted', async () => {
    const apps = t.kc.makeApiClient(AppsV1Api);
    const { id } = await fault({ type: 'freeze', namespace: 'default', component: 'frozen' });
    await apps.createNamespacedDeployment({
      namespace: 'default',
      body: deploymentManifest('frozen', 'registry.example/f:1') as V1Deployment,
    });
    await eventually(async () =>
      (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=frozen' })).items.length === 1
        ? true
        : undefined,
    );
    await new Promise((r) => setTimeout(r, 200));
    const pod = (await core.listNamespacedPod({ namespace: 'default', labelSelector: 'app=frozen' }))
      .items[0];
    expect(pod?.status?.phase).toBe('Pending');
    await api(t.cluster, 'DELETE', `/_faults/${id}`);
    await eventually(async () => {
      const d = await apps.readNamespacedDeployment({ name: 'frozen', namespace: 'default' });
      return d.status?.availableReplicas === 1 ? true : undefined;
    });
  });

  it('fails gateway hops to one service', async () => {
    const workloads = [
      { name: 'edge', deps: 'inner' },
      { name: 'inner', deps: '' },
    ];
    for (const o of workloads) {
      const manifest = deploymentManifest(o.name, `registry.example/${o.name}:1`);
      (manifest.spec.template.metadata as { annotations?: Record<string, string> }).annotations = {
        'preview.local/dependencies': o.deps,
      };
      await api(t.cluster, 'POST', '/apis/apps/v1/namespaces/default/deployments', manifest);
      await api(t.cluster, 'POST', '/api/v1/namespaces/default/services', {
        metadata: { name: o.name },
        spec: { selector: { app: o.name }, ports: [{ port: 80, targetPort: 8080 }] },
      });
    }
    await api(t.cluster, 'POST', '/apis/gateway.networking.k8s.io/v1/namespaces/default/httproutes', {
      metadata: { name: 'edge' },
      spec: {
        parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
        hostnames: ['edge.preview.localhost'],
        rules: [{ backendRefs: [{ name: 'edge', port: 80 }] }],
      },
    });
    const call = async () =>
      (await gatewayFetch(t.cluster.gatewayUrl, 'http://edge.preview.localhost/')).json() as Promise<{
        calls: { status: number }[];
      }>;
    await eventually(async () => ((await call()).calls[0]?.status === 200 ? true : undefined));
    await fault({ type: 'fail', target: 'gateway', status: 500, count: 1, match: { service: 'inner' } });
    expect((await call()).calls[0]?.status).toBe(500);
    expect((await call()).calls[0]?.status).toBe(200);
  });

  it('answers 404 NotFound for a group, as a cluster without those CRDs does', async () => {
    await fault({ type: 'fail', status: 404, match: { path: '/apis/gateway.networking.k8s.io' } });
    const discovery = await api(t.cluster, 'GET', '/apis/gateway.networking.k8s.io/v1');
    expect(discovery.status).toBe(404);
    expect(discovery.json).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
    expect((await api(t.cluster, 'GET', '/apis/apps/v1')).status).toBe(200);
  });

  it('denies like RBAC: matching requests get 403 and access reviews answer denied', async () => {
    const review = (verb: string, resource: string) =>
      api(t.cluster, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb, group: '', resource, namespace: 'default' } },
      });
    const before = await review('list', 'configmaps');
    expect(before.status).toBe(201);
    expect(before.json.status).toMatchObject({ allowed: true });

    const { id } = await fault({ type: 'deny', match: { verb: 'list', resource: 'configmaps' } });
    expect((await review('list', 'configmaps')).json.status).toEqual({
      allowed: false,
      denied: true,
      reason: `denied by fault ${id}`,
    });
    expect((await review('get', 'configmaps')).json.status.allowed).toBe(true);
    expect(await code(core.listNamespacedConfigMap({ namespace: 'default' }))).toBe(403);
    expect(await code(core.readNamespace({ name: 'default' }))).toBe(200);
  });

  it('rejects malformed faults', async () => {
    expect((await api(t.cluster, 'POST', '/_faults', { type: 'fail', status: 418 })).status).toBe(400);
    expect((await api(t.cluster, 'POST', '/_faults', { type: 'explode' })).status).toBe(400);
    expect((await api(t.cluster, 'POST', '/_faults', { type: 'deny' })).status).toBe(400);
    expect((await api(t.cluster, 'POST', '/_faults', 'not json')).status).toBe(400);
  });
});
