// The preview gateway and the mesh, driven through real HTTP: objects are applied with client-node,
// requests go through the gateway with the preview host in `Host`.

import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayFetch } from '../src/index.ts';
import { eventually, startTestCluster, type TestCluster } from './helpers.ts';

const NS = 'shop';
let t: TestCluster;
let objects: KubernetesObjectApi;

interface Answer {
  component: string | null;
  image: string | null;
  pod: string | null;
  namespace: string;
  routing_key: string | null;
  calls: { service: string; status: number; body: Answer & { error?: string; reason?: string } }[];
}

function apply(object: KubernetesObject & Record<string, unknown>) {
  return objects.patch(object, undefined, undefined, 'gateway-test', true, PatchStrategy.ServerSideApply);
}

function workload(
  name: string,
  component: string,
  image: string,
  dependencies: string[] = [],
  labels: Record<string, string> = {},
) {
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS },
      spec: {
        selector: { matchLabels: { app: name } },
        template: {
          metadata: {
            labels: { app: name, 'app.kubernetes.io/name': component, ...labels },
            annotations: dependencies.length ? { 'preview.local/dependencies': dependencies.join(',') } : {},
          },
          spec: { containers: [{ name: 'app', image, ports: [{ containerPort: 8080 }] }] },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    },
  ];
}

function publicRoute(
  name: string,
  host: string,
  backend: string,
  filters: unknown[] = [],
  extraRules: unknown[] = [],
) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: NS },
    spec: {
      parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
      hostnames: [host],
      rules: [...extraRules, { filters, backendRefs: [{ name: backend, port: 80 }] }],
    },
  };
}

function meshRoute(name: string, service: string, key: string, fork: string) {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: NS },
    spec: {
      parentRefs: [{ group: '', kind: 'Service', name: service, port: 80 }],
      rules: [
        {
          matches: [
            {
              headers: [
                {
                  type: 'RegularExpression',
                  name: 'baggage',
                  value: `(^|.*[,;\\s])preview-route=${key}(\\s*[,;].*|$)`,
                },
              ],
            },
          ],
          backendRefs: [{ name: fork, port: 80 }],
        },
        { backendRefs: [{ name: service, port: 80 }] },
      ],
    },
  };
}

async function get(host: string, path = '/', headers: Record<string, string> = {}) {
  const res = await gatewayFetch(t.cluster.gatewayUrl, `http://${host}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Answer & { error?: string; reason?: string } };
}

async function ready(deployment: string): Promise<void> {
  await eventually(async () => {
    const d = (await objects.read({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: deployment, namespace: NS },
    })) as {
      status?: { availableReplicas?: number };
    };
    return (d.status?.availableReplicas ?? 0) >= 1 ? true : undefined;
  });
}

beforeAll(async () => {
  t = await startTestCluster();
  objects = KubernetesObjectApi.makeApiClient(t.kc);
  await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  for (const o of [
    ...workload('service-a', 'service-a', 'registry.example/a:1', ['service-b']),
    ...workload('service-b', 'service-b', 'registry.example/b:1', ['service-c']),
    ...workload('service-c', 'service-c', 'registry.example/c:1'),
    ...workload('service-c-abc', 'service-c', 'registry.example/c:2-fork', [], {
      'preview.local/route': 'abc',
    }),
  ]) {
    await apply(o);
  }
  await apply(publicRoute('baseline', 'base.preview.localhost', 'service-a'));
  await apply(
    publicRoute('preview-abc', 'abc.preview.localhost', 'service-a', [
      {
        type: 'RequestHeaderModifier',
        requestHeaderModifier: { set: [{ name: 'baggage', value: 'preview-route=abc' }] },
      },
    ]),
  );
  await apply(meshRoute('service-c-abc', 'service-c', 'abc', 'service-c-abc'));
  for (const d of ['service-a', 'service-b', 'service-c', 'service-c-abc']) await ready(d);
});
afterAll(() => t.stop());

function chain(answer: Answer): string[] {
  const out = [`${answer.component}@${answer.image}#${answer.routing_key}`];
  for (const call of answer.calls) out.push(...chain(call.body));
  return out;
}

describe('preview gateway', () => {
  it('routes the baseline host through the whole chain on baseline images', async () => {
    const { status, body } = await get('base.preview.localhost:8082');
    expect(status).toBe(200);
    expect(chain(body)).toEqual([
      'service-a@registry.example/a:1#null',
      'service-b@registry.example/b:1#null',
      'service-c@registry.example/c:1#null',
    ]);
    expect(body.pod).toMatch(/^service-a-/);
    expect(body.namespace).toBe(NS);
    expect(body.calls[0]?.status).toBe(200);
  });

  it('injects the routing key on the public route and reaches a fork two hops deep', async () => {
    const keyed = await get('abc.preview.localhost:8082');
    expect(keyed.status).toBe(200);
    expect(chain(keyed.body)).toEqual([
      'service-a@registry.example/a:1#abc',
      'service-b@registry.example/b:1#abc',
      'service-c@registry.example/c:2-fork#abc',
    ]);
    const unkeyed = await get('base.preview.localhost');
    expect(chain(unkeyed.body)[2]).toBe('service-c@registry.example/c:1#null');
    const otherKey = await get('base.preview.localhost', '/', { baggage: 'user=1,preview-route=other' });
    expect(chain(otherKey.body)[2]).toBe('service-c@registry.example/c:1#other');
    const clientKey = await get('base.preview.localhost', '/', {
      baggage: 'user=1, preview-route=abc;ttl=5',
    });
    expect(chain(clientKey.body)[2]).toBe('service-c@registry.example/c:2-fork#abc');
  });

  it('logs one line per request in the pod that served it', async () => {
    const { body } = await get('abc.preview.localhost');
    const fork = body.calls[0]?.body.calls[0]?.body.pod ?? '';
    const log = await t.kc
      .makeApiClient(CoreV1Api)
      .readNamespacedPodLog({ name: fork, namespace: NS, tailLines: 1 });
    expect(log).toMatch(/^GET \/ 200 routing_key=abc\n$/);
  });

  it('answers 503 with a reason for a Service without ready pods, and callers include it', async () => {
    for (const o of [
      ...workload('front', 'front', 'registry.example/front:1', ['down']),
      ...workload('down', 'down', 'registry.example/down:1-crash'),
    ]) {
      await apply(o);
    }
    await apply(publicRoute('front', 'front.preview.localhost', 'front'));
    await apply(publicRoute('down', 'down.preview.localhost', 'down'));
    await ready('front');
    const direct = await get('down.preview.localhost');
    expect(direct.status).toBe(503);
    expect(direct.body).toMatchObject({ error: 'no_ready_endpoints' });
    expect(direct.body.reason).toContain('"down"');
    const viaFront = await get('front.preview.localhost');
    expect(viaFront.status).toBe(200);
    expect(viaFront.body.calls).toEqual([
      { service: 'down', status: 503, body: expect.objectContaining({ error: 'no_ready_endpoints' }) },
    ]);
  });

  it('matches paths and headers, and splits traffic by weight', async () => {
    await apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'matching', namespace: NS },
      spec: {
        parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
        hostnames: ['match.preview.localhost'],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/b' } }],
            backendRefs: [{ name: 'service-b', port: 80 }],
          },
          {
            matches: [{ headers: [{ name: 'x-variant', value: 'c' }] }],
            backendRefs: [{ name: 'service-c', port: 80 }],
          },
          {
            backendRefs: [
              { name: 'service-c', port: 80, weight: 1 },
              { name: 'service-c-abc', port: 80, weight: 1 },
            ],
          },
        ],
      },
    });
    expect((await get('match.preview.localhost', '/b/x')).body.component).toBe('service-b');
    expect((await get('match.preview.localhost', '/bx')).body.component).toBe('service-c');
    expect((await get('match.preview.localhost', '/', { 'x-variant': 'c' })).body.image).toBe(
      'registry.example/c:1',
    );
    const images = new Set<string | null>();
    for (let i = 0; i < 60; i++) images.add((await get('match.preview.localhost')).body.image);
    expect([...images].sort()).toEqual(['registry.example/c:1', 'registry.example/c:2-fork']);
  });

  it('answers 404 for an unknown host and sets route status honestly', async () => {
    expect((await get('nobody.preview.localhost')).status).toBe(404);
    await apply(publicRoute('dangling', 'dangling.preview.localhost', 'no-such-service'));
    const custom = t.kc.makeApiClient(CustomObjectsApi);
    type Status = { parents?: { conditions: { type: string; status: string; reason: string }[] }[] };
    const resolvedRefs = (wanted: string) =>
      eventually(async () => {
        const r = (await custom.getNamespacedCustomObject({
          group: 'gateway.networking.k8s.io',
          version: 'v1',
          namespace: NS,
          plural: 'httproutes',
          name: 'dangling',
        })) as { status?: Status };
        const condition = r.status?.parents?.[0]?.conditions.find((c) => c.type === 'ResolvedRefs');
        return condition?.reason === wanted ? r : undefined;
      });
    const route = await resolvedRefs('BackendNotFound');
    const conditions = route.status?.parents?.[0]?.conditions ?? [];
    expect(conditions.find((c) => c.type === 'Accepted')).toMatchObject({
      status: 'True',
      reason: 'Accepted',
    });
    expect(conditions.find((c) => c.type === 'ResolvedRefs')).toMatchObject({
      status: 'False',
      reason: 'BackendNotFound',
    });
    const res = await get('dangling.preview.localhost');
    expect(res.status).toBe(500);
    // The route's status follows the Service it names as it comes and goes, the route unchanged.
    const [, service] = workload('no-such-service', 'late', 'registry.example/late:1');
    await apply(service as KubernetesObject & Record<string, unknown>);
    await resolvedRefs('ResolvedRefs');
    await t.kc.makeApiClient(CoreV1Api).deleteNamespacedService({ name: 'no-such-service', namespace: NS });
    await resolvedRefs('BackendNotFound');
    const good = (await custom.getNamespacedCustomObject({
      group: 'gateway.networking.k8s.io',
      version: 'v1',
      namespace: NS,
      plural: 'httproutes',
      name: 'service-c-abc',
    })) as {
      status: { parents: { parentRef: { kind: string }; conditions: { type: string; status: string }[] }[] };
    };
    expect(good.status.parents[0]?.parentRef.kind).toBe('Service');
    expect(good.status.parents[0]?.conditions.map((c) => `${c.type}=${c.status}`)).toEqual([
      'Accepted=True',
      'ResolvedRefs=True',
    ]);
  });

  it('reaches a Service of another namespace only through a ReferenceGrant there, as upstream gateways do', async () => {
    await apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'elsewhere' } });
    await apply({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'across', namespace: 'elsewhere' },
      spec: {
        parentRefs: [{ name: 'preview', namespace: 'svc-system' }],
        hostnames: ['across.preview.localhost'],
        rules: [{ backendRefs: [{ name: 'service-b', namespace: NS, port: 80 }] }],
      },
    });
    const refused = await get('across.preview.localhost');
    expect(refused.status).toBe(500);
    expect(refused.body.error).toBe('ref_not_permitted');

    const grant = (to: Record<string, string>) => ({
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      metadata: { name: 'from-elsewhere', namespace: NS },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'elsewhere' }],
        to: [{ group: '', kind: 'Service', ...to }],
      },
    });
    await apply(grant({ name: 'service-c' }));
    expect((await get('across.preview.localhost')).status).toBe(500);
    await apply(grant({ name: 'service-b' }));
    const allowed = await get('across.preview.localhost');
    expect(allowed.status).toBe(200);
    expect(allowed.body.component).toBe('service-b');
  });

  it('serves a curl-style request for a real *.localhost name through the gateway port', async () => {
    const url = new URL(t.cluster.gatewayUrl);
    const res = await gatewayFetch(t.cluster.gatewayUrl, `http://base.preview.localhost:${url.port}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
  });
});
