/**
 * `POST /v1/installation/check` against the local cluster: a Gateway that reports Accepted and
 * Programmed, mesh routes that its controller accepts once a composition is ready, and faults that
 * make the Gateway API vanish or the API server fail, and the worker's RBAC narrowed.
 */
import { readFileSync } from 'node:fs';
import type { Cluster } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { afterEach, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { createComposition, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;
useTestStack({}, (started) => {
  ({ stack, http } = started);
});
afterEach(async () => {
  await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
});

async function fault(body: unknown): Promise<void> {
  const response = await fetch(`${stack.clusterUrl}/_faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

// biome-ignore lint/suspicious/noExplicitAny: JSON answers inspected by assertions
type Check = { id: string; status: string; message: string; evidence: Record<string, any> };

async function check(spec: unknown = {}) {
  const answer = await http.post('/v1/installation/check', spec);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const checks = answer.body.checks as Check[];
  const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
  return { status: answer.body.status as string, checks, byId };
}

const meshController = 'mesh-route-controller:demo/staging';

describe('installation check against the local cluster', () => {
  it('is incomplete until a mesh route has been accepted, then passes', async () => {
    const before = await check();
    expect(before.byId[meshController]).toMatchObject({
      status: 'unknown',
      evidence: { service_parented_routes: 0 },
    });
    // Each demo baseline (staging, staging-sleepy) waits for a mesh route of its own namespace.
    expect(before.checks.filter((c) => c.status !== 'passed').map((c) => c.id)).toEqual([
      meshController,
      'mesh-route-controller:demo/staging-sleepy',
    ]);
    expect(before.status).toBe('incomplete');
    // The demo's staging-sleepy sleeps: KEDA is checked for it (the local cluster serves it), for it alone.
    expect(before.checks.filter((c) => c.id.startsWith('keda')).map((c) => [c.id, c.status])).toEqual([
      ['keda:local', 'passed'],
      ['keda-interceptor:local', 'passed'],
    ]);
    expect(before.byId['keda:local']?.evidence.sleeping_baselines).toEqual(['demo/staging-sleepy']);
    expect(before.byId['cluster:local']?.evidence.version).toBe('v1.32.0-local');
    expect(before.byId['gateway:demo/staging']).toMatchObject({
      status: 'passed',
      evidence: {
        gateway: 'svc-system/preview',
        source: 'catalog',
        gateway_class: 'local',
        conditions: { Accepted: { status: 'True' }, Programmed: { status: 'True' } },
      },
    });
    expect(before.byId['gateway-listener:demo/staging']?.message).toBe(
      'listener http of Gateway svc-system/preview admits HTTPRoutes for *.preview.localhost from namespace staging',
    );
    expect(before.byId['gateway-features:demo/staging']).toMatchObject({
      status: 'passed',
      evidence: {
        gateway_class: 'local',
        controller: 'preview.local/gateway-controller',
        supported_features: expect.arrayContaining(['HTTPRouteResponseHeaderModification']),
      },
    });
    // Read from the HTTPRoute definition, not dry-run: the API's identity may not write (deploy/kubernetes/rbac.yaml).
    expect(before.byId['mesh-route-schema:demo/staging']).toMatchObject({
      status: 'passed',
      evidence: {
        definition: 'httproutes.gateway.networking.k8s.io',
        parent: 'Service service-a:80',
        served_versions: ['v1'],
      },
    });
    expect(before.checks.filter((c) => c.id.startsWith('workload:')).map((c) => c.id)).toEqual(
      ['staging', 'staging-sleepy'].flatMap((baseline) =>
        ['service-a', 'service-b', 'service-c', 'service-d'].map((c) => `workload:demo/${baseline}/${c}`),
      ),
    );
    // The check stored nothing.
    const routes = await stack.cluster.list(
      'staging',
      [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }],
      '',
    );
    expect(routes).toEqual([]);

    const composition = await createComposition(http, {
      'service-b': { image: image('service-b', '2.0.0') },
    });
    await waitForPhase(http, composition.id, ['ready']);
    const after = await check();
    expect(after.byId[meshController]).toMatchObject({
      status: 'passed',
      evidence: {
        proof: {
          route: `preview-${composition.id}-service-b`,
          parent: 'Service service-b',
          controller: 'preview.local/gateway-controller',
          regex: true,
        },
      },
    });
    expect(after.status).toBe('passed');
  });

  it('fails a baseline whose component workload is missing', async () => {
    const demo = await import('@svc/local/demo');
    // ghost runs the demo baseline in a namespace of its own, and names a workload it does not run.
    const manifest = demo.demoManifestAs('ghost');
    await demo.deployBaselineOf(stack.cluster, manifest, 'ghost');
    const project = structuredClone(manifest.projects[0]) as (typeof manifest.projects)[number];
    project.components.push({
      ...(project.components[0] as (typeof project.components)[number]),
      name: 'service-z',
      workload: { kind: 'Deployment', name: 'service-z', container: 'app' },
      service: { name: 'service-z', port: 80 },
      dependencies: [],
      log_selector: { 'app.kubernetes.io/name': 'service-z' },
    });
    for (const baseline of project.baselines) {
      baseline.components['service-z'] = { image: image('service-z', '1.0.0'), replicas: 1 };
    }
    expect((await http.post('/v1/catalog/apply', { projects: [project] })).status).toBe(200);

    const { status, byId } = await check({ targets: [{ project: 'ghost' }] });
    expect(byId['workload:ghost/staging/service-z']).toMatchObject({
      status: 'failed',
      message: 'Deployment ghost/service-z not found; Service ghost/service-z not found',
    });
    expect(byId['workload:ghost/staging/service-a']?.status).toBe('passed');
    expect(byId['namespace:demo/staging']).toBeUndefined();
    expect(status).toBe('failed');
  });

  it('fails when the Gateway API is not served; what needs it is not established', async () => {
    await fault({ type: 'fail', status: 404, match: { path: '/apis/gateway.networking.k8s.io' } });
    const { status, byId } = await check({ targets: [{ project: 'demo' }] });
    expect(byId['gateway-api:local']).toMatchObject({ status: 'failed', evidence: { resources: null } });
    for (const id of [
      'gateway:demo/staging',
      'gateway-listener:demo/staging',
      'gateway-features:demo/staging',
      meshController,
    ]) {
      expect(byId[id], id).toMatchObject({
        status: 'unknown',
        evidence: { depends_on: 'gateway-api:local' },
      });
    }
    expect(byId['permissions:demo/staging']?.status).toBe('passed');
    expect(status).toBe('failed');
  });

  it("fails naming what the cluster's RBAC does not grant the worker", async () => {
    const manifest = YAML.parseAllDocuments(readFileSync('deploy/kubernetes/rbac.yaml', 'utf8')).map(
      (document) =>
        document.toJS() as Cluster.ClusterObject & { rules: { resources: string[]; verbs: string[] }[] },
    );
    const role = manifest.find(
      (o) => o.kind === 'ClusterRole' && o.metadata.name === 'preview-composition-worker',
    );
    if (!role) throw new Error('the manifest has no worker role');
    const narrowed = role.rules
      .filter((r) => r.resources[0] !== 'pods')
      .map((r) =>
        r.resources[0] === 'deployments' ? { ...r, verbs: r.verbs.filter((v) => v !== 'delete') } : r,
      );
    await stack.cluster.apply({ ...role, rules: narrowed });
    try {
      const { status, byId } = await check({ targets: [{ project: 'demo', baselines: ['staging'] }] });
      expect(byId['permissions:demo/staging']).toMatchObject({
        status: 'failed',
        evidence: {
          namespace: 'staging',
          subject: 'group preview-composition-worker',
          denied: ['delete deployments.apps', 'list pods'],
        },
      });
      expect(status).toBe('failed');
    } finally {
      await stack.cluster.apply(role);
    }
    const { byId } = await check({ targets: [{ project: 'demo', baselines: ['staging'] }] });
    expect(byId['permissions:demo/staging']?.status).toBe('passed');
  });

  it('is incomplete, never passed, while the API server fails every request', async () => {
    await fault({ type: 'fail', status: 503 });
    const { status, checks, byId } = await check({ targets: [{ project: 'demo' }] });
    expect(byId['cluster:local']?.status).toBe('passed');
    // The catalog's own checks ask nothing of the cluster: the stage's grants and the catalog decide them.
    const asked = checks.filter(
      (c) =>
        c.id !== 'cluster:local' &&
        c.id !== 'catalog-namespaces' &&
        c.id !== 'catalog-clusters' &&
        c.id !== 'repository-claims' &&
        !c.id.startsWith('messaging:'),
    );
    expect(asked.every((c) => c.status === 'unknown')).toBe(true);
    expect(byId['messaging:demo/staging']?.status).toBe('passed');
    expect(byId['catalog-namespaces']?.status).toBe('passed');
    expect(byId['repository-claims']?.status).toBe('passed');
    expect(byId['gateway-api:local']?.message).toContain('503');
    expect(status).toBe('incomplete');
  });

  it('checks the Gateway the specification names instead of the catalog one', async () => {
    const { status, byId } = await check({
      targets: [{ project: 'demo', gateway: { namespace: 'svc-system', name: 'elsewhere' } }],
    });
    expect(byId['gateway:demo/staging']).toMatchObject({
      status: 'failed',
      evidence: { gateway: 'svc-system/elsewhere', source: 'specification' },
    });
    expect(status).toBe('failed');
  });

  it('refuses a specification naming what the catalog does not have, and one of the wrong shape', async () => {
    const unknown = await http.post('/v1/installation/check', {
      targets: [{ project: 'demo', baselines: ['production'] }],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({
      code: 'unknown_reference',
      errors: [{ path: '/targets/0/baselines/0' }],
    });
    const shape = await http.post('/v1/installation/check', { targets: [{ project: 'demo', gateway: 'x' }] });
    expect(shape.status).toBe(422);
    expect(shape.body.errors[0].path).toBe('/targets/0/gateway');
  });
});
