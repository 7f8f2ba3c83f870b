import { describe, expect, it } from 'vitest';
import type { ComponentProfile } from '../catalog/schema.ts';
import { demoCatalog, image } from '../testing/fixtures.ts';
import { type Deployment, forkName, type Service } from './objects.ts';
import {
  anchor,
  baggageMatch,
  compositionSelector,
  type ForkInput,
  forkDeployment,
  forkSelector,
  forkService,
  meshRoute,
  ownerReference,
  publicRoute,
} from './render.ts';

const catalog = demoCatalog();
const baseline = catalog.baselines.staging?.spec as NonNullable<typeof catalog.baselines.staging>['spec'];
const profile = catalog.components['service-b']?.spec as ComponentProfile;
const owner = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'preview-c-1',
  uid: 'u-1',
  blockOwnerDeletion: true,
};

const baselineDeployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'service-b', namespace: 'staging' },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'service-b' } },
    template: {
      metadata: { labels: { app: 'service-b', tier: 'backend' }, annotations: { team: 'payments' } },
      spec: {
        containers: [
          {
            name: 'app',
            image: image('service-b', '1.0.0'),
            env: [
              { name: 'MODE', value: 'x' },
              { name: 'KEEP', value: 'y' },
            ],
          },
          { name: 'sidecar', image: 'registry.example.com/proxy:1' },
        ],
        serviceAccountName: 'service-b',
      },
    },
  },
};
const baselineService: Service = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 'service-b', namespace: 'staging' },
  spec: { selector: { app: 'service-b' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
};
const input: ForkInput = {
  id: 'c-1',
  generation: 3,
  component: 'service-b',
  profile,
  baseline,
  baselineDeployment,
  baselineService,
  image: image('service-b', '2.0.0'),
  owner,
};

describe('names and selectors', () => {
  it('fork names are <base>-<id>, shortened with a hash past 63 characters', () => {
    expect(forkName('service-b', 'c-1')).toBe('service-b-c-1');
    const long = forkName('a'.repeat(60), 'c-1');
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^a+-[0-9a-f]{6}-c-1$/);
    expect(forkName('a'.repeat(60), 'c-1')).toBe(long);
    expect(forkName(`${'a'.repeat(59)}b`, 'c-1')).not.toBe(long);
  });

  it('select by composition, and by composition and component', () => {
    expect(compositionSelector('c-1')).toBe('preview.svc/composition=c-1');
    expect(forkSelector('c-1', 'service-b')).toBe(
      'preview.svc/composition=c-1,preview.svc/component=service-b',
    );
  });

  it('match a baggage header carrying this routing key among other entries, and no other key', () => {
    const match = new RegExp(baggageMatch('c-1'));
    for (const header of [
      'preview-route=c-1',
      'a=b, preview-route=c-1',
      'preview-route=c-1;p=1',
      'x=1,preview-route=c-1 ,y=2',
    ]) {
      expect(header).toMatch(match);
    }
    for (const header of ['preview-route=c-10', 'preview-route=c', 'xpreview-route=c-1', 'other=c-1']) {
      expect(header).not.toMatch(match);
    }
  });
});

describe('the anchor', () => {
  it('is a labelled ConfigMap naming the composition and generation', () => {
    expect(anchor('c-1', 'staging', 2)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'preview-c-1',
        namespace: 'staging',
        labels: {
          'app.kubernetes.io/managed-by': 'preview-composition-service',
          'preview.svc/composition': 'c-1',
        },
      },
      data: { composition: 'c-1', generation: '2' },
    });
  });

  it('owns only once applied: a reference needs its uid', () => {
    expect(() => ownerReference(anchor('c-1', 'staging', 1))).toThrow(/apply it first/);
    const applied = anchor('c-1', 'staging', 1);
    applied.metadata.uid = 'u-1';
    expect(ownerReference(applied)).toEqual(owner);
  });
});

describe('the fork Deployment', () => {
  const fork = forkDeployment(input);
  const containers = fork.spec.template.spec.containers;

  it("runs the override image in the profile's container only, keeping the rest of the pod template", () => {
    expect(containers.map((c) => [c.name, c.image])).toEqual([
      ['app', image('service-b', '2.0.0')],
      ['sidecar', 'registry.example.com/proxy:1'],
    ]);
    expect(fork.spec.template.spec.serviceAccountName).toBe('service-b');
    expect(fork.spec.template.metadata?.annotations).toEqual({ team: 'payments' });
  });

  it('drops the labels the baseline Service selects on, so baseline traffic never reaches it', () => {
    expect(fork.spec.template.metadata?.labels).toEqual({
      tier: 'backend',
      'app.kubernetes.io/managed-by': 'preview-composition-service',
      'preview.svc/composition': 'c-1',
      'preview.svc/component': 'service-b',
    });
    expect(fork.spec.selector).toEqual({
      matchLabels: { 'preview.svc/composition': 'c-1', 'preview.svc/component': 'service-b' },
    });
  });

  it('keeps a pod serving while it rolls, with the baseline replicas and a progress deadline', () => {
    expect(fork.metadata).toMatchObject({
      name: 'service-b-c-1',
      namespace: 'staging',
      annotations: { 'preview.svc/generation': '3', 'preview.svc/baseline-workload': 'service-b' },
      ownerReferences: [owner],
    });
    expect(fork.spec).toMatchObject({
      replicas: 2,
      progressDeadlineSeconds: 120,
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    });
    expect(forkDeployment({ ...input, progressDeadlineSeconds: 5 }).spec.progressDeadlineSeconds).toBe(5);
  });

  it('sets extra variables, replacing those of the same name', () => {
    const env = forkDeployment({ ...input, env: [{ name: 'MODE', value: 'preview' }] }).spec.template.spec
      .containers[0]?.env;
    expect(env).toEqual([
      { name: 'KEEP', value: 'y' },
      { name: 'MODE', value: 'preview' },
    ]);
    expect(containers[0]?.env).toEqual(baselineDeployment.spec.template.spec.containers[0]?.env);
  });
});

describe('the fork Service', () => {
  it("copies the baseline Service's ports and selects the fork's pods", () => {
    expect(forkService(input)).toMatchObject({
      metadata: {
        name: 'service-b-c-1',
        labels: { 'preview.svc/component': 'service-b' },
        ownerReferences: [owner],
      },
      spec: {
        selector: { 'preview.svc/composition': 'c-1', 'preview.svc/component': 'service-b' },
        ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }],
      },
    });
  });

  it("falls back to the profile's ports without a baseline Service", () => {
    expect(forkService({ ...input, baselineService: null }).spec.ports).toEqual([
      { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
    ]);
  });
});

describe('routes', () => {
  const entry = catalog.components['service-a']?.spec as ComponentProfile;

  it('the public route matches the preview host, adds the routing key and forwards to the entry', () => {
    const route = publicRoute({ id: 'c-1', baseline, entry, entryOverridden: false, owner });
    expect(route).toMatchObject({
      kind: 'HTTPRoute',
      metadata: { name: 'preview-c-1', namespace: 'staging' },
      spec: {
        parentRefs: [{ kind: 'Gateway', name: 'preview', namespace: 'svc-system' }],
        hostnames: ['c-1.preview.localhost'],
        rules: [
          {
            filters: [{ requestHeaderModifier: { add: [{ name: 'baggage', value: 'preview-route=c-1' }] } }],
            backendRefs: [{ name: 'service-a', port: 80 }],
          },
        ],
      },
    });
    const toFork = publicRoute({ id: 'c-1', baseline, entry, entryOverridden: true, owner });
    expect(toFork).toMatchObject({
      spec: { rules: [{ backendRefs: [{ name: 'service-a-c-1', port: 80 }] }] },
    });
  });

  it('while a generation rolls out, the public route sets Preview-Rollout on every answer', () => {
    const route = publicRoute({
      id: 'c-1',
      baseline,
      entry,
      entryOverridden: false,
      owner,
      pendingGeneration: 3,
    });
    expect((route.spec as { rules: { filters: unknown[] }[] }).rules[0]?.filters).toEqual([
      {
        type: 'RequestHeaderModifier',
        requestHeaderModifier: { add: [{ name: 'baggage', value: 'preview-route=c-1' }] },
      },
      {
        type: 'ResponseHeaderModifier',
        responseHeaderModifier: { set: [{ name: 'Preview-Rollout', value: 'pending; generation=3' }] },
      },
    ]);
  });

  it("a mesh route on the component's Service sends keyed requests to the fork and the rest to the baseline", () => {
    expect(meshRoute({ id: 'c-1', component: 'service-b', profile, baseline, owner })).toMatchObject({
      metadata: { name: 'preview-c-1-service-b', labels: { 'preview.svc/component': 'service-b' } },
      spec: {
        parentRefs: [{ group: '', kind: 'Service', name: 'service-b', port: 80 }],
        rules: [
          {
            matches: [
              { headers: [{ type: 'RegularExpression', name: 'baggage', value: baggageMatch('c-1') }] },
            ],
            backendRefs: [{ name: 'service-b-c-1', port: 80 }],
          },
          { backendRefs: [{ name: 'service-b', port: 80 }] },
        ],
      },
    });
  });
});
