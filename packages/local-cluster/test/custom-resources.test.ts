// Types beyond the built-ins: declared in the options, or added at run time by a CRD.

import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestCluster, type TestCluster } from './helpers.ts';

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
});
