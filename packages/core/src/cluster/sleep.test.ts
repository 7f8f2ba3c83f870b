import { describe, expect, it } from 'vitest';
import type { ComponentProfile } from '../catalog/schema.ts';
import { crawlerUserAgentPattern } from '../compositions/sleep.ts';
import { demoCatalog } from '../testing/fixtures.ts';
import { forkDeployment, meshRoute, publicRoute } from './render.ts';
import {
  holdAwakePatch,
  holdsAwake,
  interceptorGrant,
  interceptorRoute,
  type SleepingForkInput,
  scaledObject,
} from './sleep.ts';

const catalog = demoCatalog();
const baseline = catalog.baselines.staging?.spec as NonNullable<typeof catalog.baselines.staging>['spec'];
const profileOf = (name: string) => catalog.components[name]?.spec as ComponentProfile;
const owner = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  name: 'preview-c-1',
  uid: 'u-1',
  blockOwnerDeletion: true,
};
const fork: SleepingForkInput = {
  id: 'c-1',
  component: 'service-b',
  profile: profileOf('service-b'),
  baseline,
  owner,
  afterSeconds: 900,
  queueUrls: [],
  sqs: { region: 'eu-west-1', endpoint: null },
  awakeUntil: null,
};
const interceptor = {
  group: '',
  kind: 'Service',
  name: 'keda-add-ons-http-interceptor-proxy',
  namespace: 'keda',
  port: 8080,
};
const host = 'service-b-c-1.staging.sleep.preview.internal';

describe("a sleeping fork's KEDA objects", () => {
  it("routes the fork's own host to the fork's Service (InterceptorRoute, add-on 0.14+)", () => {
    expect(interceptorRoute(fork)).toMatchObject({
      apiVersion: 'http.keda.sh/v1beta1',
      kind: 'InterceptorRoute',
      metadata: { name: 'service-b-c-1', namespace: 'staging', ownerReferences: [owner] },
      spec: {
        target: { service: 'service-b-c-1', port: 80 },
        rules: [{ hosts: [host] }],
        scalingMetric: { concurrency: { targetValue: 100 } },
      },
    });
  });

  it('scales the fork between 0 and its baseline replicas, idle for after, woken by the interceptor', () => {
    expect(scaledObject(fork)).toEqual({
      apiVersion: 'keda.sh/v1alpha1',
      kind: 'ScaledObject',
      metadata: expect.objectContaining({ name: 'service-b-c-1', namespace: 'staging' }),
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'service-b-c-1' },
        minReplicaCount: 0,
        maxReplicaCount: 2,
        cooldownPeriod: 900,
        triggers: [
          {
            type: 'external-push',
            metadata: {
              scalerAddress: 'keda-add-ons-http-external-scaler.keda:9090',
              interceptorRoute: 'service-b-c-1',
            },
          },
        ],
      },
    });
  });

  it('holds the fork at one replica at least while a wake command lasts, annotated until when', () => {
    const until = '2026-03-01T12:05:00.000Z';
    const held = scaledObject({ ...fork, awakeUntil: until });
    expect(held.spec).toMatchObject({ minReplicaCount: 1 });
    expect(held.metadata.annotations).toEqual({ 'preview.svc/awake-until': until });
    expect(scaledObject(fork).metadata.annotations).toBeUndefined();
    expect(holdsAwake(held, until)).toBe(true);
    expect(holdsAwake(held, null)).toBe(false);
    expect(holdsAwake(scaledObject(fork), null)).toBe(true);
  });

  it("wakes or lets go of a fork by a merge patch of its ScaledObject's minimum and annotation", () => {
    expect(holdAwakePatch('2026-03-01T12:05:00.000Z')).toEqual({
      metadata: { annotations: { 'preview.svc/awake-until': '2026-03-01T12:05:00.000Z' } },
      spec: { minReplicaCount: 1 },
    });
    expect(holdAwakePatch(null)).toEqual({
      metadata: { annotations: { 'preview.svc/awake-until': null } },
      spec: { minReplicaCount: 0 },
    });
  });

  it('is woken by a message on each isolated queue (aws-sqs-queue), with an endpoint only off AWS', () => {
    const queueURL = 'http://127.0.0.1:4566/000000000000/preview-c-1-service-b';
    const object = scaledObject({
      ...fork,
      queueUrls: [queueURL],
      sqs: { region: 'us-east-1', endpoint: 'http://127.0.0.1:4566' },
    });
    expect((object.spec as { triggers: unknown[] }).triggers[1]).toEqual({
      type: 'aws-sqs-queue',
      metadata: {
        queueURL,
        awsRegion: 'us-east-1',
        queueLength: '1',
        activationQueueLength: '0',
        identityOwner: 'operator',
        awsEndpoint: 'http://127.0.0.1:4566',
      },
    });
    const onAws = scaledObject({ ...fork, queueUrls: [queueURL] });
    expect((onAws.spec as { triggers: { metadata: object }[] }).triggers[1]?.metadata).not.toHaveProperty(
      'awsEndpoint',
    );
  });

  it("grants the namespace's routes the interceptor's Service, from the interceptor's namespace", () => {
    expect(interceptorGrant('staging')).toMatchObject({
      kind: 'ReferenceGrant',
      metadata: { namespace: 'keda' },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'staging' }],
        to: [{ group: '', kind: 'Service', name: 'keda-add-ons-http-interceptor-proxy' }],
      },
    });
  });
});

describe("a sleeping composition's routes", () => {
  const crawlerPattern = crawlerUserAgentPattern(['Slackbot', 'Twitterbot']);
  const entry = profileOf('service-a');

  it("sends the overridden entry through the interceptor, its host rewritten to the fork's", () => {
    const route = publicRoute({
      id: 'c-1',
      baseline,
      entry,
      entryOverridden: true,
      owner,
      sleep: { crawlerPattern: null },
    });
    const rules = (route.spec as { rules: Record<string, unknown>[] }).rules;
    expect(rules).toHaveLength(1);
    expect(rules[0]?.backendRefs).toEqual([interceptor]);
    expect(rules[0]?.filters).toContainEqual({
      type: 'URLRewrite',
      urlRewrite: { hostname: 'service-a-c-1.staging.sleep.preview.internal' },
    });
  });

  it('sends crawlers to the baseline entry without the routing key, ahead of the keyed rule', () => {
    const route = publicRoute({
      id: 'c-1',
      baseline,
      entry,
      entryOverridden: true,
      owner,
      sleep: { crawlerPattern },
    });
    const [crawlers] = (route.spec as { rules: Record<string, unknown>[] }).rules;
    expect(crawlers).toEqual({
      matches: [{ headers: [{ type: 'RegularExpression', name: 'User-Agent', value: crawlerPattern }] }],
      backendRefs: [{ name: 'service-a', port: 80 }],
    });
  });

  it('keeps the routing to the baseline entry when the entry is not overridden', () => {
    const route = publicRoute({
      id: 'c-1',
      baseline,
      entry,
      entryOverridden: false,
      owner,
      sleep: { crawlerPattern },
    });
    const rules = (route.spec as { rules: Record<string, unknown>[] }).rules;
    expect(rules[1]?.backendRefs).toEqual([{ name: 'service-a', port: 80 }]);
  });

  it("sends keyed mesh requests to the interceptor with the fork's host; the rest still to the baseline", () => {
    const route = meshRoute({
      id: 'c-1',
      component: 'service-b',
      profile: profileOf('service-b'),
      baseline,
      owner,
      sleeps: true,
    });
    const [keyed, rest] = (route.spec as { rules: Record<string, unknown>[] }).rules;
    expect(keyed?.filters).toEqual([{ type: 'URLRewrite', urlRewrite: { hostname: host } }]);
    expect(keyed?.backendRefs).toEqual([interceptor]);
    expect(rest?.backendRefs).toEqual([{ name: 'service-b', port: 80 }]);
  });
});

describe("a sleeping fork's Deployment", () => {
  it('leaves replicas to its ScaledObject: the apply does not write them', () => {
    const base = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'service-b', namespace: 'staging' },
      spec: {
        replicas: 2,
        selector: {},
        template: { spec: { containers: [{ name: 'app', image: 'x:1' }] } },
      },
    };
    const input = { ...fork, generation: 1, baselineDeployment: base, baselineService: null, image: 'x:2' };
    expect(forkDeployment(input).spec.replicas).toBe(2);
    expect(forkDeployment({ ...input, sleeps: true }).spec).not.toHaveProperty('replicas');
  });
});
