// Types beyond the built-ins: declared in the options, or added at run time by a CRD.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, eventually, startTestCluster, type TestCluster } from './helpers.ts';

let t: TestCluster;

beforeAll(async () => {
  t = await startTestCluster({
    resources: [{ group: 'example.com', version: 'v1', kind: 'Widget', shortNames: ['wd'] }],
  });
});
afterAll(() => t.stop());

describe('custom resources', () => {
  it('stores a type declared in the options, found through discovery', async () => {
    const objects = KubernetesObjectApi.makeApiClient(t.kc);
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'default' },
      spec: { size: 3 },
    };
    await objects.patch(widget, undefined, undefined, 'test', true, PatchStrategy.ServerSideApply);
    const read = (await objects.read(widget)) as typeof widget;
    expect(read.spec).toEqual({ size: 3 });
    const strategic = await objects
      .patch(
        { ...widget, spec: { size: 4 } },
        undefined,
        undefined,
        'test',
        undefined,
        PatchStrategy.StrategicMergePatch,
      )
      .catch((e: { code: number }) => e);
    expect(strategic).toMatchObject({ code: 415 });
    const list = await t.kubectl('get', 'wd', '-o', 'name');
    expect(list.stdout.trim()).toBe('widget.example.com/w');
  });

  it('serves a CRD after it is created and drops its objects when it is deleted', async () => {
    const ext = t.kc.makeApiClient(ApiextensionsV1Api);
    await ext.createCustomResourceDefinition({
      body: {
        metadata: { name: 'gadgets.example.org' },
        spec: {
          group: 'example.org',
          scope: 'Namespaced',
          names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
          versions: [
            {
              name: 'v1alpha1',
              served: true,
              storage: true,
              subresources: { status: {} },
              schema: { openAPIV3Schema: { type: 'object' } },
            },
          ],
        },
      },
    });
    const crd = await eventually(async () => {
      const c = await ext.readCustomResourceDefinition({ name: 'gadgets.example.org' });
      return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True')
        ? c
        : undefined;
    });
    expect(crd.status?.acceptedNames?.kind).toBe('Gadget');
    const custom = t.kc.makeApiClient(CustomObjectsApi);
    const coordinates = {
      group: 'example.org',
      version: 'v1alpha1',
      namespace: 'default',
      plural: 'gadgets',
    };
    await custom.createNamespacedCustomObject({
      ...coordinates,
      body: {
        apiVersion: 'example.org/v1alpha1',
        kind: 'Gadget',
        metadata: { name: 'g' },
        spec: { on: true },
      },
    });
    const list = (await custom.listNamespacedCustomObject(coordinates)) as {
      items: { kind: string; metadata: { name: string } }[];
    };
    expect(list.items.map((i) => `${i.kind}/${i.metadata.name}`)).toEqual(['Gadget/g']);
    await ext.deleteCustomResourceDefinition({ name: 'gadgets.example.org' });
    const gone = await custom.listNamespacedCustomObject(coordinates).catch((e: { code: number }) => e);
    expect(gone).toMatchObject({ code: 404 });
  });

  it('publishes read-only CRDs for the Gateway API kinds it serves', async () => {
    const ext = t.kc.makeApiClient(ApiextensionsV1Api);
    const routes = await eventually(async () => {
      const c = await ext.readCustomResourceDefinition({ name: 'httproutes.gateway.networking.k8s.io' });
      return c.status?.conditions?.some((x) => x.type === 'Established') ? c : undefined;
    });
    expect(routes.spec.names).toMatchObject({ kind: 'HTTPRoute', categories: ['gateway-api'] });
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const patched = await api(
      t.cluster,
      'PATCH',
      `${path}/httproutes.gateway.networking.k8s.io`,
      { spec: { scope: 'Cluster' } },
      'application/merge-patch+json',
    );
    expect(patched.status).toBe(403);
    expect(patched.json).toMatchObject({
      reason: 'Forbidden',
      details: { name: 'httproutes.gateway.networking.k8s.io' },
    });
    expect((await api(t.cluster, 'PUT', `${path}/gateways.gateway.networking.k8s.io`, routes)).status).toBe(
      403,
    );
    expect((await api(t.cluster, 'DELETE', `${path}/referencegrants.gateway.networking.k8s.io`)).status).toBe(
      403,
    );
    expect((await api(t.cluster, 'DELETE', path)).status).toBe(403);
    const left = await ext.listCustomResourceDefinition();
    expect(left.items.filter((c) => c.spec.group === 'gateway.networking.k8s.io')).toHaveLength(4);
    const kubectl = await t.kubectl('get', 'gateway-api', '-A', '-o', 'name');
    expect(kubectl.stdout).toContain('gateway.gateway.networking.k8s.io/preview');
  });

  it('keeps one copy of the Gateway API CRDs across a restart and brings it up to date', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'local-cluster-crds-'));
    const list = async (cluster: TestCluster) =>
      (await cluster.kc.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition()).items;
    try {
      const first = await startTestCluster({ dataDir });
      const before = await list(first);
      await first.stop();
      // A snapshot written by an older cluster, whose definitions had no categories.
      const state = join(dataDir, 'state.json');
      const saved = readFileSync(state, 'utf8');
      expect(saved).toContain('"categories":["gateway-api"]');
      writeFileSync(state, saved.replaceAll('"categories":["gateway-api"]', '"categories":[]'));
      const second = await startTestCluster({ dataDir });
      const after = await list(second);
      await second.stop();
      expect(after.map((c) => c.metadata?.uid)).toEqual(before.map((c) => c.metadata?.uid));
      expect(after.map((c) => c.spec.names.categories)).toEqual([
        ['gateway-api'],
        ['gateway-api'],
        ['gateway-api'],
        ['gateway-api'],
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
