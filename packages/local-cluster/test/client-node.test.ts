// Conformance with @kubernetes/client-node: typed APIs, generic server-side apply, Watch and Log.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubernetesObjectApi,
  Log,
  PatchStrategy,
  setHeaderOptions,
  type V1ConfigMap,
  type V1Deployment,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  deploymentManifest,
  eventually,
  POD_READY_DELAY_MS,
  startTestCluster,
  type TestCluster,
} from './helpers.ts';

let t: TestCluster;
let core: CoreV1Api;
let apps: AppsV1Api;

beforeAll(async () => {
  t = await startTestCluster({ crashBackoffMs: 60_000, imagePullBackoffMs: 60_000, slowReadyMs: 400 });
  core = t.kc.makeApiClient(CoreV1Api);
  apps = t.kc.makeApiClient(AppsV1Api);
});
afterAll(() => t.stop());

async function namespace(name: string): Promise<string> {
  await core.createNamespace({ body: { metadata: { name } } });
  return name;
}

async function statusOf(promise: Promise<unknown>): Promise<number> {
  try {
    await promise;
    return 200;
  } catch (error) {
    return (error as { code: number }).code;
  }
}

describe('discovery', () => {
  it('lists core and apps resources with kinds, verbs and short names', async () => {
    const coreList = await core.getAPIResources();
    const pods = coreList.resources.find((r) => r.name === 'pods');
    expect(pods).toMatchObject({ kind: 'Pod', namespaced: true, singularName: 'pod', shortNames: ['po'] });
    expect(pods?.verbs).toContain('watch');
    expect(coreList.resources.map((r) => r.name)).toEqual(
      expect.arrayContaining(['pods/log', 'pods/status', 'namespaces']),
    );
    const appsList = await apps.getAPIResources();
    expect(appsList.resources.find((r) => r.name === 'deployments')?.shortNames).toEqual(['deploy']);
    expect(appsList.resources.find((r) => r.name === 'deployments/scale')?.kind).toBe('Scale');
  });
});

describe('create, get, update, list', () => {
  it('creates with generateName, refuses duplicates and stale updates', async () => {
    const ns = await namespace('crud');
    const a = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { generateName: 'cfg-' }, data: { a: '1' } },
    });
    expect(a.metadata?.name).toMatch(/^cfg-[a-z0-9]{5}$/);
    expect(a.metadata?.uid).toBeTruthy();
    expect(a.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const name = a.metadata?.name ?? '';
    expect(
      await statusOf(
        core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name }, data: {} } }),
      ),
    ).toBe(409);

    const updated = await core.replaceNamespacedConfigMap({
      name,
      namespace: ns,
      body: { ...a, data: { a: '2' } },
    });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(a.metadata?.resourceVersion));
    const stale = core.replaceNamespacedConfigMap({ name, namespace: ns, body: { ...a, data: { a: '3' } } });
    await expect(stale).rejects.toMatchObject({ code: 409 });
    const body = await stale.catch((e: { body: string }) => JSON.parse(e.body) as { reason: string });
    expect(body).toMatchObject({ reason: 'Conflict' });
  });

  it('bumps generation on spec changes only', async () => {
    const ns = await namespace('generation');
    const d = await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('g', 'registry.example/g:1') as V1Deployment,
    });
    expect(d.metadata?.generation).toBe(1);
    const labelled = await apps.patchNamespacedDeployment(
      { name: 'g', namespace: ns, body: { metadata: { labels: { extra: 'yes' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(labelled.metadata?.generation).toBe(1);
    const scaled = await apps.patchNamespacedDeployment(
      { name: 'g', namespace: ns, body: { spec: { replicas: 2 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(scaled.metadata?.generation).toBe(2);
  });

  it('filters lists by set-based labels and fields, and pages with limit/continue', async () => {
    const ns = await namespace('lists');
    const tiers: [string, string][] = [
      ['a', 'web'],
      ['b', 'api'],
      ['c', 'db'],
      ['d', 'web'],
      ['e', 'cache'],
    ];
    for (const [name, tier] of tiers) {
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels: { tier } } } });
    }
    const inSet = await core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier in (web,api)' });
    expect(inSet.items.map((i) => i.metadata?.name)).toEqual(['a', 'b', 'd']);
    const notIn = await core.listNamespacedConfigMap({
      namespace: ns,
      labelSelector: 'tier notin (web,api),tier',
    });
    expect(notIn.items.map((i) => i.metadata?.name)).toEqual(['c', 'e']);
    const byName = await core.listNamespacedConfigMap({ namespace: ns, fieldSelector: 'metadata.name=c' });
    expect(byName.items.map((i) => i.metadata?.name)).toEqual(['c']);
    const page1 = await core.listNamespacedConfigMap({ namespace: ns, limit: 2 });
    expect(page1.items.map((i) => i.metadata?.name)).toEqual(['a', 'b']);
    expect(page1.metadata?.remainingItemCount).toBe(3);
    const page2 = await core.listNamespacedConfigMap({
      namespace: ns,
      limit: 2,
      _continue: page1.metadata?._continue ?? '',
    });
    expect(page2.items.map((i) => i.metadata?.name)).toEqual(['c', 'd']);
    const page3 = await core.listNamespacedConfigMap({
      namespace: ns,
      limit: 2,
      _continue: page2.metadata?._continue ?? '',
    });
    expect(page3.items.map((i) => i.metadata?.name)).toEqual(['e']);
    expect(page3.metadata?._continue).toBeUndefined();
    expect(
      await statusOf(core.listNamespacedConfigMap({ namespace: ns, labelSelector: 'tier in (web' })),
    ).toBe(400);
  });

  it('answers errors as Status objects with reason and code', async () => {
    const error = await core
      .readNamespacedConfigMap({ name: 'missing', namespace: 'default' })
      .catch((e: { code: number; body: string }) => e);
    expect(error).toMatchObject({ code: 404 });
    expect(JSON.parse((error as { body: string }).body)).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "missing" not found',
    });
    expect(
      await statusOf(
        core.createNamespacedConfigMap({ namespace: 'nowhere', body: { metadata: { name: 'x' } } }),
      ),
    ).toBe(404);
    const invalid = await apps
      .createNamespacedDeployment({
        namespace: 'default',
        body: { metadata: { name: 'bad' }, spec: { selector: {}, template: {} } } as V1Deployment,
      })
      .catch((e: { code: number }) => e);
    expect(invalid).toMatchObject({ code: 422 });
  });
});

describe('patches', () => {
  it('applies merge, JSON and strategic-merge patches (containers merged by name)', async () => {
    const ns = await namespace('patches');
    const manifest = deploymentManifest('p', 'registry.example/p:1');
    manifest.spec.template.spec.containers.push({
      name: 'sidecar',
      image: 'registry.example/side:1',
      ports: [],
    });
    await apps.createNamespacedDeployment({ namespace: ns, body: manifest as V1Deployment });

    const strategic = await apps.patchNamespacedDeployment(
      {
        name: 'p',
        namespace: ns,
        body: {
          spec: { template: { spec: { containers: [{ name: 'p', image: 'registry.example/p:2' }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.spec?.template.spec?.containers.map((c) => [c.name, c.image])).toEqual([
      ['p', 'registry.example/p:2'],
      ['sidecar', 'registry.example/side:1'],
    ]);
    expect(strategic.spec?.template.spec?.containers[0]?.ports).toEqual([
      { containerPort: 8080, protocol: 'TCP' },
    ]);

    const merge = await apps.patchNamespacedDeployment(
      {
        name: 'p',
        namespace: ns,
        body: {
          spec: { template: { spec: { containers: [{ name: 'only', image: 'registry.example/o:1' }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merge.spec?.template.spec?.containers.map((c) => c.name)).toEqual(['only']);

    const json = await apps.patchNamespacedDeployment(
      {
        name: 'p',
        namespace: ns,
        body: [
          { op: 'test', path: '/spec/replicas', value: 1 },
          { op: 'replace', path: '/spec/replicas', value: 3 },
          { op: 'add', path: '/metadata/labels/patched', value: 'json' },
        ],
      },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    expect(json.spec?.replicas).toBe(3);
    expect(json.metadata?.labels?.patched).toBe('json');
    const failed = apps.patchNamespacedDeployment(
      { name: 'p', namespace: ns, body: [{ op: 'test', path: '/spec/replicas', value: 1 }] },
      setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
    );
    await expect(failed).rejects.toMatchObject({ code: 422 });
  });

  it('server-side applies with KubernetesObjectApi: ownership, removal, conflicts and force', async () => {
    const ns = await namespace('apply');
    const objects = KubernetesObjectApi.makeApiClient(t.kc);
    const cm: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: ns, labels: { a: '1', b: '2' } },
      data: { x: '1', y: '2' },
    };
    const created = await objects.patch(
      cm,
      undefined,
      undefined,
      'svc',
      undefined,
      PatchStrategy.ServerSideApply,
    );
    expect(created.metadata?.managedFields?.[0]).toMatchObject({ manager: 'svc', operation: 'Apply' });

    const dropped = await objects.patch(
      { ...cm, metadata: { ...cm.metadata, labels: { a: '1' } }, data: { x: '1' } },
      undefined,
      undefined,
      'svc',
      undefined,
      PatchStrategy.ServerSideApply,
    );
    expect(dropped.metadata?.labels).toEqual({ a: '1' });
    expect(dropped.data).toEqual({ x: '1' });

    const conflicting: V1ConfigMap = {
      ...cm,
      metadata: { name: 'cfg', namespace: ns },
      data: { x: 'other' },
    };
    const conflict = await objects
      .patch(conflicting, undefined, undefined, 'intruder', false, PatchStrategy.ServerSideApply)
      .catch((e: { code: number; body: string }) => e);
    expect(conflict).toMatchObject({ code: 409 });
    expect(JSON.parse((conflict as { body: string }).body).message).toContain('conflict with "svc"');

    const forced = await objects.patch(
      conflicting,
      undefined,
      undefined,
      'intruder',
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(forced.data).toEqual({ x: 'other' });
    const managers = forced.metadata?.managedFields?.map((m) => m.manager).sort();
    expect(managers).toEqual(['intruder', 'svc']);

    const read: V1ConfigMap = await objects.read({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: ns },
    });
    expect(read.metadata?.resourceVersion).toBe(forced.metadata?.resourceVersion);
  });
});

describe('workloads', () => {
  it('rolls a Deployment out to Available within a few ms of the pod-ready delay', async () => {
    const ns = await namespace('rollout');
    const started = Date.now();
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('web', 'registry.example/web:1', 3) as V1Deployment,
    });
    const d = await eventually(async () => {
      const x = await apps.readNamespacedDeployment({ name: 'web', namespace: ns });
      const available = x.status?.conditions?.find((c) => c.type === 'Available')?.status === 'True';
      const done =
        x.status?.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NewReplicaSetAvailable';
      return available && done ? x : undefined;
    });
    expect(Date.now() - started).toBeLessThan(POD_READY_DELAY_MS + 1000);
    expect(d.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 1,
    });
    const rs = await apps.listNamespacedReplicaSet({ namespace: ns });
    expect(rs.items).toHaveLength(1);
    expect(rs.items[0]?.metadata?.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    const pods = await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=web' });
    expect(pods.items).toHaveLength(3);
    for (const pod of pods.items) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.status?.podIP).toMatch(/^10\.244\./);
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', controller: true });
    }

    await apps.patchNamespacedDeployment(
      {
        name: 'web',
        namespace: ns,
        body: {
          spec: { template: { spec: { containers: [{ name: 'web', image: 'registry.example/web:2' }] } } },
        },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    await eventually(async () => {
      const x = await apps.readNamespacedDeployment({ name: 'web', namespace: ns });
      const s = x.status;
      return s?.observedGeneration === 2 &&
        s.updatedReplicas === 3 &&
        s.replicas === 3 &&
        s.availableReplicas === 3
        ? x
        : undefined;
    });
    const images = (await core.listNamespacedPod({ namespace: ns })).items.map(
      (p) => p.spec?.containers[0]?.image,
    );
    expect(images).toEqual(['registry.example/web:2', 'registry.example/web:2', 'registry.example/web:2']);
    const sets = (await apps.listNamespacedReplicaSet({ namespace: ns })).items;
    expect(sets.map((s) => s.spec?.replicas).sort()).toEqual([0, 3]);
  });

  it('scales through the scale subresource', async () => {
    const ns = await namespace('scale');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('s', 'registry.example/s:1', 1) as V1Deployment,
    });
    const scale = await apps.readNamespacedDeploymentScale({ name: 's', namespace: ns });
    expect(scale.spec?.replicas).toBe(1);
    await apps.replaceNamespacedDeploymentScale({
      name: 's',
      namespace: ns,
      body: { ...scale, spec: { replicas: 4 } },
    });
    await eventually(async () =>
      (await core.listNamespacedPod({ namespace: ns })).items.length === 4 ? true : undefined,
    );
  });

  it('reports image pull failures, crash loops and slow starts', async () => {
    const ns = await namespace('failures');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('missing', 'registry.example/m:1-missing') as V1Deployment,
    });
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('crash', 'registry.example/c:1-crash') as V1Deployment,
    });
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('slow', 'registry.example/s:1-slow') as V1Deployment,
    });
    const waiting = async (app: string, reason: string) =>
      eventually(async () => {
        const pod = (await core.listNamespacedPod({ namespace: ns, labelSelector: `app=${app}` })).items[0];
        return pod?.status?.containerStatuses?.[0]?.state?.waiting?.reason === reason ? pod : undefined;
      });
    const pulling = await waiting('missing', 'ImagePullBackOff');
    expect(pulling.status?.phase).toBe('Pending');
    const events = await core.listNamespacedEvent({
      namespace: ns,
      fieldSelector: `involvedObject.name=${pulling.metadata?.name}`,
    });
    expect(events.items.map((e) => e.reason)).toEqual(
      expect.arrayContaining(['Scheduled', 'Failed', 'BackOff']),
    );
    expect(events.items.some((e) => e.message?.includes('ErrImagePull'))).toBe(true);

    const crashing = await waiting('crash', 'CrashLoopBackOff');
    expect(crashing.status?.containerStatuses?.[0]?.restartCount).toBe(1);
    expect(crashing.status?.containerStatuses?.[0]?.lastState?.terminated?.exitCode).toBe(1);
    const current = await core.readNamespacedPodLog({ name: crashing.metadata?.name ?? '', namespace: ns });
    const previous = await core.readNamespacedPodLog({
      name: crashing.metadata?.name ?? '',
      namespace: ns,
      previous: true,
    });
    expect(current).toContain('panic:');
    expect(previous).toContain('panic:');

    const slowPod = (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=slow' })).items[0];
    expect(slowPod?.status?.conditions?.find((c) => c.type === 'Ready')?.status).not.toBe('True');
    await eventually(async () => {
      const pod = (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=slow' })).items[0];
      return pod?.status?.containerStatuses?.[0]?.ready ? pod : undefined;
    });
  });

  it('marks ProgressDeadlineExceeded when a rollout makes no progress', async () => {
    const ns = await namespace('deadline');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('stuck', 'registry.example/x:1-missing', 1, {
        progressDeadlineSeconds: 1,
      }) as V1Deployment,
    });
    const d = await eventually(async () => {
      const x = await apps.readNamespacedDeployment({ name: 'stuck', namespace: ns });
      const c = x.status?.conditions?.find((k) => k.type === 'Progressing');
      return c?.reason === 'ProgressDeadlineExceeded' ? c : undefined;
    }, 5000);
    expect(d.status).toBe('False');
  });

  it('keeps Endpoints of a Service in step with ready pods', async () => {
    const ns = await namespace('endpoints');
    await core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'web' },
        spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    });
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('web', 'registry.example/web:1', 2) as V1Deployment,
    });
    const ep = await eventually(async () => {
      const e = await core.readNamespacedEndpoints({ name: 'web', namespace: ns });
      return e.subsets?.[0]?.addresses?.length === 2 ? e : undefined;
    });
    expect(ep.subsets?.[0]?.ports).toEqual([{ port: 8080, protocol: 'TCP' }]);
    const svc = await core.readNamespacedService({ name: 'web', namespace: ns });
    expect(svc.spec?.clusterIP).toMatch(/^10\.96\./);
    const slices = await t.kc
      .makeApiClient(DiscoveryV1Api)
      .listNamespacedEndpointSlice({ namespace: ns, labelSelector: 'kubernetes.io/service-name=web' });
    expect(slices.items[0]?.endpoints?.filter((e) => e.conditions?.ready)).toHaveLength(2);
  });

  it('serves logs with tailLines, timestamps and limitBytes through Log', async () => {
    const ns = await namespace('logs');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('l', 'registry.example/l:1') as V1Deployment,
    });
    const pod = await eventually(async () => {
      const p = (await core.listNamespacedPod({ namespace: ns })).items[0];
      return p?.status?.containerStatuses?.[0]?.ready ? p : undefined;
    });
    const read = async (options: Record<string, unknown>) => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (c: Buffer) => {
        text += c.toString();
      });
      const ended = new Promise((r) => out.on('end', r));
      await new Log(t.kc).log(ns, pod.metadata?.name ?? '', 'l', out, options);
      await ended;
      return text;
    };
    const all = await read({});
    expect(all.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(all).toContain('starting l');
    const tail = await read({ tailLines: 1 });
    expect(tail).toBe('ready\n');
    const stamped = await read({ tailLines: 1, timestamps: true });
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z ready\n$/);
    expect(await read({ limitBytes: 5 })).toHaveLength(5);
    expect(await read({ sinceSeconds: 60 })).toBe(all);
  });
});

describe('watch', () => {
  it('streams ADDED, MODIFIED and DELETED and resumes from a resourceVersion', async () => {
    const ns = await namespace('watching');
    const seen: string[] = [];
    const watch = new Watch(t.kc);
    const controller = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      {},
      (type, obj: { metadata: { name: string } }) => seen.push(`${type} ${obj.metadata.name}`),
      () => {},
    );
    const a = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'a' } } });
    await core.patchNamespacedConfigMap(
      { name: 'a', namespace: ns, body: { data: { k: 'v' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.deleteNamespacedConfigMap({ name: 'a', namespace: ns });
    await eventually(() => (seen.length >= 3 ? true : undefined));
    controller.abort();
    expect(seen).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);

    const resumed: string[] = [];
    const again = await watch.watch(
      `/api/v1/namespaces/${ns}/configmaps`,
      { resourceVersion: a.metadata?.resourceVersion ?? '' },
      (type) => resumed.push(type),
      () => {},
    );
    await eventually(() => (resumed.length >= 2 ? true : undefined));
    again.abort();
    expect(resumed).toEqual(['MODIFIED', 'DELETED']);
  });

  it('answers 410 Gone for a compacted resourceVersion and sends bookmarks', async () => {
    const small = await startTestCluster({ watchHistory: 5, bookmarkIntervalMs: 50 });
    try {
      const c = small.kc.makeApiClient(CoreV1Api);
      const first = await c.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { name: 'first' } },
      });
      for (let i = 0; i < 10; i++)
        await c.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: `n${i}` } } });
      const events: { type: string; object: { code?: number; metadata?: { resourceVersion?: string } } }[] =
        [];
      const watch = new Watch(small.kc);
      await watch.watch(
        '/api/v1/namespaces/default/configmaps',
        { resourceVersion: first.metadata?.resourceVersion ?? '' },
        (type, object) => events.push({ type, object }),
        () => {},
      );
      await eventually(() => (events.length > 0 ? true : undefined));
      expect(events[0]).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });

      const marks: string[] = [];
      const list = await c.listNamespacedConfigMap({ namespace: 'default' });
      const ctl = await watch.watch(
        '/api/v1/namespaces/default/configmaps',
        { resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true },
        (type) => marks.push(type),
        () => {},
      );
      await eventually(() => (marks.includes('BOOKMARK') ? true : undefined));
      ctl.abort();
    } finally {
      await small.stop();
    }
  });
});

describe('deletion', () => {
  it('garbage-collects dependents in the background, foreground and orphan modes', async () => {
    const ns = await namespace('deletion');
    for (const name of ['bg', 'fg', 'orphan']) {
      await apps.createNamespacedDeployment({
        namespace: ns,
        body: deploymentManifest(name, `registry.example/${name}:1`, 2) as V1Deployment,
      });
    }
    await eventually(async () =>
      (await core.listNamespacedPod({ namespace: ns })).items.length === 6 ? true : undefined,
    );

    await apps.deleteNamespacedDeployment({ name: 'bg', namespace: ns, propagationPolicy: 'Background' });
    await eventually(async () =>
      (await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=bg' })).items.length === 0
        ? true
        : undefined,
    );
    expect(
      (await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=bg' })).items,
    ).toHaveLength(0);

    const fg = await apps.deleteNamespacedDeployment({
      name: 'fg',
      namespace: ns,
      propagationPolicy: 'Foreground',
    });
    expect(fg).toBeTruthy();
    await eventually(async () =>
      (await statusOf(apps.readNamespacedDeployment({ name: 'fg', namespace: ns }))) === 404
        ? true
        : undefined,
    );
    expect((await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=fg' })).items).toHaveLength(0);

    await apps.deleteNamespacedDeployment({ name: 'orphan', namespace: ns, propagationPolicy: 'Orphan' });
    await eventually(async () =>
      (await statusOf(apps.readNamespacedDeployment({ name: 'orphan', namespace: ns }))) === 404
        ? true
        : undefined,
    );
    const left = await apps.listNamespacedReplicaSet({ namespace: ns, labelSelector: 'app=orphan' });
    expect(left.items).toHaveLength(1);
    expect(left.items[0]?.metadata?.ownerReferences).toBeUndefined();
    expect((await core.listNamespacedPod({ namespace: ns, labelSelector: 'app=orphan' })).items).toHaveLength(
      2,
    );
  });

  it('holds an object with finalizers until they are removed', async () => {
    const ns = await namespace('finalizers');
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'held', finalizers: ['example.com/hold'] } },
    });
    await core.deleteNamespacedConfigMap({ name: 'held', namespace: ns });
    const held = await core.readNamespacedConfigMap({ name: 'held', namespace: ns });
    expect(held.metadata?.deletionTimestamp).toBeInstanceOf(Date);
    await core.patchNamespacedConfigMap(
      { name: 'held', namespace: ns, body: { metadata: { finalizers: null } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(await statusOf(core.readNamespacedConfigMap({ name: 'held', namespace: ns }))).toBe(404);
  });

  it('deletes a namespace with its contents', async () => {
    const ns = await namespace('doomed');
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: deploymentManifest('d', 'registry.example/d:1') as V1Deployment,
    });
    await core.deleteNamespace({ name: ns });
    await eventually(async () =>
      (await statusOf(core.readNamespace({ name: ns }))) === 404 ? true : undefined,
    );
    expect(
      (await core.listPodForAllNamespaces({ fieldSelector: `metadata.namespace=${ns}` })).items,
    ).toHaveLength(0);
  });
});

describe('authentication and persistence', () => {
  it('answers SelfSubjectAccessReviews (allowed: there is no RBAC) without storing them', async () => {
    const authorization = t.kc.makeApiClient(AuthorizationV1Api);
    const review = await authorization.createSelfSubjectAccessReview({
      body: {
        spec: {
          resourceAttributes: { verb: 'get', resource: 'pods', subresource: 'log', namespace: 'default' },
        },
      },
    });
    expect(review.status).toMatchObject({ allowed: true });
    expect(review.spec.resourceAttributes?.subresource).toBe('log');
    const resources = (await authorization.getAPIResources()).resources;
    expect(resources.map((r) => [r.name, r.namespaced, r.verbs])).toEqual([
      ['selfsubjectaccessreviews', false, ['create']],
      ['selfsubjectrulesreviews', false, ['create']],
      ['subjectaccessreviews', false, ['create']],
      ['localsubjectaccessreviews', true, ['create']],
    ]);
    const list = await fetch(`${t.cluster.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`);
    expect(list.status).toBe(405);
    await expect(authorization.createSelfSubjectAccessReview({ body: { spec: {} } })).rejects.toMatchObject({
      code: 422,
    });
  });

  it('requires a known bearer token on Kubernetes paths when the cluster has users', async () => {
    const secured = await startTestCluster({
      users: [{ token: 's3cret', name: 'admin', groups: ['system:masters'] }],
    });
    try {
      const c = secured.kc.makeApiClient(CoreV1Api);
      expect((await c.listNamespace()).items.length).toBeGreaterThan(0);
      const unknown = await fetch(`${secured.cluster.url}/api/v1/namespaces`, {
        headers: { authorization: 'Bearer guessed' },
      });
      expect(unknown.status).toBe(401);
      expect(await unknown.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      const anonymous = await fetch(`${secured.cluster.url}/api/v1/namespaces`);
      expect(anonymous.status).toBe(403);
      expect(await anonymous.json()).toMatchObject({
        reason: 'Forbidden',
        message:
          'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
      });
      expect((await fetch(`${secured.cluster.url}/healthz`)).status).toBe(200);
    } finally {
      await secured.stop();
    }
  });

  it('keeps state across a restart with a data directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'local-cluster-data-'));
    try {
      const first = await startTestCluster({ dataDir });
      const c1 = first.kc.makeApiClient(AppsV1Api);
      await c1.createNamespacedDeployment({
        namespace: 'default',
        body: deploymentManifest('kept', 'registry.example/k:1') as V1Deployment,
      });
      const before = await eventually(async () => {
        const d = await c1.readNamespacedDeployment({ name: 'kept', namespace: 'default' });
        return d.status?.availableReplicas === 1 ? d : undefined;
      });
      await first.stop();
      const second = await startTestCluster({ dataDir });
      try {
        const c2 = second.kc.makeApiClient(AppsV1Api);
        const after = await c2.readNamespacedDeployment({ name: 'kept', namespace: 'default' });
        expect(after.metadata?.uid).toBe(before.metadata?.uid);
        expect(Number(after.metadata?.resourceVersion)).toBeGreaterThanOrEqual(
          Number(before.metadata?.resourceVersion),
        );
        expect(after.status?.availableReplicas).toBe(1);
        const created = await c2.createNamespacedDeployment({
          namespace: 'default',
          body: deploymentManifest('new', 'registry.example/n:1') as V1Deployment,
        });
        expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(
          Number(after.metadata?.resourceVersion),
        );
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
