// KEDA's scale to and from zero as the local cluster serves it: a ScaledObject scales its
// Deployment to zero after the cooldown, and a request through the interceptor wakes it, is held
// while its pod becomes ready, then answered; past the hold's limits a 503 says the preview is waking.

import {
  AppsV1Api,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayFetch } from '../src/index.ts';
import { eventually, startTestCluster, type TestCluster } from './helpers.ts';

const NS = 'sleepy';
let t: TestCluster;
let objects: KubernetesObjectApi;
let apps: AppsV1Api;

function apply(object: KubernetesObject & Record<string, unknown>) {
  return objects.patch(object, undefined, undefined, 'keda-test', true, PatchStrategy.ServerSideApply);
}

const replicas = async () =>
  (await apps.readNamespacedDeployment({ name: 'fork', namespace: NS })).spec?.replicas;

async function sleepingFork(name: string, cooldownPeriod: number) {
  await apply({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, 'app.kubernetes.io/name': name } },
        spec: { containers: [{ name: 'app', image: 'registry.example.com/fork:2.0.0' }] },
      },
    },
  });
  await apply({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: NS },
    spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
  });
  await apply({
    apiVersion: 'http.keda.sh/v1beta1',
    kind: 'InterceptorRoute',
    metadata: { name, namespace: NS },
    spec: {
      target: { service: name, port: 80 },
      rules: [{ hosts: [`${name}.sleepy.sleep.preview.internal`] }],
      scalingMetric: { concurrency: { targetValue: 100 } },
    },
  });
  await apply({
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name, namespace: NS },
    spec: {
      scaleTargetRef: { name },
      minReplicaCount: 0,
      maxReplicaCount: 1,
      cooldownPeriod,
      triggers: [
        {
          type: 'external-push',
          metadata: { scalerAddress: 'keda-add-ons-http-external-scaler.keda:9090', interceptorRoute: name },
        },
      ],
    },
  });
  await apply({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: NS },
    spec: {
      parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
      hostnames: [`${name}.preview.localhost`],
      rules: [
        {
          filters: [
            { type: 'URLRewrite', urlRewrite: { hostname: `${name}.sleepy.sleep.preview.internal` } },
          ],
          backendRefs: [{ name: 'keda-add-ons-http-interceptor-proxy', namespace: 'keda', port: 8080 }],
        },
      ],
    },
  });
  // The interceptor is in another namespace: routes reach it through a grant there, as rendered.
  await apply({
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name: `from-${NS}`, namespace: 'keda' },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: NS }],
      to: [{ group: '', kind: 'Service', name: 'keda-add-ons-http-interceptor-proxy' }],
    },
  });
}

beforeAll(async () => {
  // Pods take 300 ms to be ready: a held request must outwait them.
  t = await startTestCluster({ podReadyDelayMs: 300, kedaTickMs: 50, interceptorHold: { ms: 5000 } });
  objects = KubernetesObjectApi.makeApiClient(t.kc);
  apps = t.kc.makeApiClient(AppsV1Api);
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  await sleepingFork('fork', 1);
}, 30_000);

afterAll(() => t?.stop());

describe('a ScaledObject with minReplicaCount 0', () => {
  it('scales its Deployment to zero after cooldownPeriod seconds without requests', async () => {
    expect(await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000)).toBe(true);
  });

  it('wakes on a request through the interceptor, holds it until a pod is ready, and answers it', async () => {
    await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000);
    const started = Date.now();
    const response = await gatewayFetch(t.cluster.gatewayUrl, 'http://fork.preview.localhost/hello');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { component: string };
    expect(body.component).toBe('fork');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await replicas()).toBe(1);
  });

  it('holds a request its endpoints send to a pod already gone (they lag a scale to zero) and answers it from the wake', async () => {
    await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000);
    // What a request meets as its fork scales to zero: the endpoints still name a ready pod that is gone.
    await apply({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'fork', namespace: NS },
      subsets: [
        {
          addresses: [{ ip: '10.0.0.99', targetRef: { kind: 'Pod', name: 'fork-gone', namespace: NS } }],
          ports: [{ port: 8080 }],
        },
      ],
    });
    const response = await gatewayFetch(t.cluster.gatewayUrl, 'http://fork.preview.localhost/');
    expect(response.status).toBe(200);
    expect(((await response.json()) as { component: string }).component).toBe('fork');
    expect(await replicas()).toBe(1);
  });

  it('sleeps again once the requests stop', async () => {
    await gatewayFetch(t.cluster.gatewayUrl, 'http://fork.preview.localhost/');
    expect(await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000)).toBe(true);
  });

  it('scales a Deployment at zero up to minReplicaCount with no request, and to zero again once it is back to 0', async () => {
    await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000);
    const minimum = (minReplicaCount: number) =>
      objects.patch(
        {
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          metadata: { name: 'fork', namespace: NS },
          spec: { minReplicaCount },
        },
        undefined,
        undefined,
        'wake-test',
        undefined,
        PatchStrategy.MergePatch,
      );
    await minimum(1);
    expect(await eventually(async () => ((await replicas()) === 1 ? true : undefined), 10_000)).toBe(true);
    // Held at its minimum, it outlasts its cooldown (1 s) without a request.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await replicas()).toBe(1);
    await minimum(0);
    expect(await eventually(async () => ((await replicas()) === 0 ? true : undefined), 10_000)).toBe(true);
  });

  it('answers 404 for a host no InterceptorRoute has', async () => {
    await apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'nowhere', namespace: NS },
      spec: {
        parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
        hostnames: ['nowhere.preview.localhost'],
        rules: [
          {
            filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'nowhere.internal' } }],
            backendRefs: [{ name: 'keda-add-ons-http-interceptor-proxy', namespace: 'keda', port: 8080 }],
          },
        ],
      },
    });
    const response = await eventually(async () => {
      const r = await gatewayFetch(t.cluster.gatewayUrl, 'http://nowhere.preview.localhost/');
      return r.status === 404 ? r : undefined;
    });
    expect(((await response.json()) as { error: string }).error).toBe('no_interceptor_route');
  });
});

describe("the interceptor's hold", () => {
  it('answers 503 with Retry-After and a body saying the preview is waking when a pod is not ready in time', async () => {
    const slow = await startTestCluster({
      podReadyDelayMs: 2000,
      kedaTickMs: 50,
      interceptorHold: { ms: 200 },
    });
    try {
      const previous = { objects, apps };
      objects = KubernetesObjectApi.makeApiClient(slow.kc);
      apps = slow.kc.makeApiClient(AppsV1Api);
      try {
        await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
        await sleepingFork('fork', 1);
        await eventually(async () => ((await replicas()) === 0 ? true : undefined), 15_000);
        const response = await gatewayFetch(slow.cluster.gatewayUrl, 'http://fork.preview.localhost/');
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('2');
        const body = (await response.json()) as { error: string; reason: string };
        expect(body.error).toBe('preview_waking');
        expect(body.reason).toContain('the preview is waking');
        // The wake it started goes on: the next request, after the pod, is answered.
        await eventually(async () => {
          const r = await gatewayFetch(slow.cluster.gatewayUrl, 'http://fork.preview.localhost/');
          return r.status === 200 ? true : undefined;
        }, 10_000);
      } finally {
        ({ objects, apps } = previous);
      }
    } finally {
      await slow.stop();
    }
  }, 40_000);
});
