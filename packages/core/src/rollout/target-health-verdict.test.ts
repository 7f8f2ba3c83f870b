import { describe, expect, it } from 'vitest';
import type { ComponentProfile } from '../catalog/schema.ts';
import { CheckKind, type CheckRecord, CheckStatus } from '../checks/model.ts';
import type { ClusterObject, Deployment, Service } from '../cluster/objects.ts';
import { Phase } from '../compositions/model.ts';
import { composition, demoCatalog, forkDeployment, image, now, waitingPod } from '../testing/fixtures.ts';
import { RolloutBlockerCode } from './blockers.ts';
import {
  failureGrace,
  progressDeadlineFailure,
  rolledOut,
  rolloutComplete,
  unhealthyFork,
  watchBoundMs,
} from './health.ts';
import {
  entryRoute,
  forkableBases,
  inheritedAgain,
  mayHaveInherited,
  pendingEntryRoute,
  type RolloutTarget,
  rolloutTarget,
} from './target.ts';
import { destroyFinished, rolloutFinished, rolloutWait } from './verdict.ts';

const catalog = demoCatalog();
const b2 = image('service-b', '2.0.0');
const c2 = image('service-c', '2.0.0');

function target(images: Record<string, string> = { 'service-b': b2 }): RolloutTarget {
  const found = rolloutTarget(catalog, composition(images));
  if ('kind' in found) throw new Error(found.blockers[0]?.message);
  return found;
}

const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();

describe('the rollout target', () => {
  it('has the baseline, each fork with its image and profile, and the entry profile', () => {
    const found = target({ 'service-c': c2, 'service-b': b2 });
    expect(found.baseline.name).toBe('staging');
    expect(found.forks.map((f) => [f.component, f.image, f.profile.name])).toEqual([
      ['service-c', c2, 'service-c'],
      ['service-b', b2, 'service-b'],
    ]);
    expect(found.entry.name).toBe('service-a');
    expect(Object.keys(found.profiles).sort()).toEqual(['service-a', 'service-b', 'service-c']);
  });

  it('is blocked by baseline_missing when the catalog version or its baseline cannot be read', () => {
    expect(rolloutTarget(null, composition())).toMatchObject({
      kind: 'fail',
      blockers: [{ code: RolloutBlockerCode.BaselineMissing, component: null }],
    });
    expect(rolloutTarget(catalog, composition({}, { baseline: 'gone' }))).toMatchObject({
      blockers: [
        { code: 'baseline_missing', message: 'baseline "gone" of project "demo" is no longer registered' },
      ],
    });
  });

  it('is blocked by component_missing naming the first component no longer registered', () => {
    expect(rolloutTarget(catalog, composition({ 'service-x': b2, 'service-y': b2 }))).toMatchObject({
      blockers: [
        {
          code: RolloutBlockerCode.ComponentMissing,
          component: 'service-x',
          message: 'component "service-x" is no longer registered',
        },
      ],
    });
  });
});

describe('forking the baseline', () => {
  const fork = target().forks[0] as RolloutTarget['forks'][number];
  const deployment = forkDeployment('service-b', image('service-b', '1.0.0'));
  const service: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'service-b' }, spec: {} };

  it('is possible when every baseline Deployment has the container and every Service exists', () => {
    expect(forkableBases('staging', [{ ...fork, deployment, service }])).toEqual({
      kind: 'forkable',
      bases: [{ ...fork, deployment, service }],
    });
  });

  it('is blocked by what is missing, every override at once', () => {
    const noContainer = forkDeployment('service-b', b2);
    const profile: ComponentProfile = {
      ...fork.profile,
      workload: { ...fork.profile.workload, container: 'web' },
    };
    const result = forkableBases('staging', [
      { ...fork, deployment: null, service: null },
      { ...fork, component: 'service-c', profile, deployment: noContainer, service },
    ]);
    expect(result).toEqual({
      kind: 'fail',
      blockers: [
        {
          code: 'baseline_workload_missing',
          message: 'baseline Deployment staging/service-b of "service-b" does not exist',
          component: 'service-b',
        },
        {
          code: 'baseline_service_missing',
          message: 'baseline Service staging/service-b of "service-b" does not exist',
          component: 'service-b',
        },
        {
          code: 'container_missing',
          message: 'baseline Deployment staging/service-b has no container "web"',
          component: 'service-c',
        },
      ],
    });
  });
});

describe('routes', () => {
  const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'preview-c-1', uid: 'u-1' };
  const backend = (route: ReturnType<typeof entryRoute>) =>
    (route.spec as { rules: { backendRefs: { name: string }[] }[] }).rules[0]?.backendRefs[0]?.name;

  type Rules = { rules: { filters: { responseHeaderModifier?: unknown }[] }[] };
  const pendingMark = (route: ClusterObject | null) =>
    ((route?.spec ?? { rules: [] }) as Rules).rules[0]?.filters.find((f) => f.responseHeaderModifier)
      ?.responseHeaderModifier ?? null;

  it('send the public host to the baseline entry, or to its fork when the entry is overridden', () => {
    expect(backend(entryRoute(composition(), target(), owner))).toBe('service-a');
    const entryOverridden = composition({ 'service-a': image('service-a', '2.0.0') });
    expect(backend(entryRoute(entryOverridden, target(), owner))).toBe('service-a-c-1');
    expect(pendingMark(entryRoute(entryOverridden, target(), owner))).toBeNull();
  });

  it('while a generation rolls out, mark answers pending on the route to what served the entry before', () => {
    const mark = (generation: number) => ({
      set: [{ name: 'Preview-Rollout', value: `pending; generation=${generation}` }],
    });
    const first = pendingEntryRoute(composition(undefined, { observed_generation: 0 }), target(), owner, 1);
    expect(backend(first as ClusterObject)).toBe('service-a');
    expect(pendingMark(first)).toEqual(mark(1));

    const a2 = { 'service-a': image('service-a', '2.0.0') };
    const servedByFork = composition(a2, {
      observed_generation: 1,
      observed: {
        components: { 'service-a': { image: a2['service-a'], ready: true, generation: 1 } },
        blockers: [],
        updated_at: null,
      },
    });
    const update = pendingEntryRoute(servedByFork, target(a2), owner, 2);
    expect(backend(update as ClusterObject)).toBe('service-a-c-1');
    expect(pendingMark(update)).toEqual(mark(2));

    const servedByBaseline = composition(a2, { observed_generation: 1 });
    expect(backend(pendingEntryRoute(servedByBaseline, target(a2), owner, 2) as ClusterObject)).toBe(
      'service-a',
    );
  });

  it('give a first rollout that overrides the entry no route until its fork is out', () => {
    const a2 = { 'service-a': image('service-a', '2.0.0') };
    expect(pendingEntryRoute(composition(a2, { observed_generation: 0 }), target(a2), owner, 1)).toBeNull();
  });

  it('of components back to inheritance are found by their component label', () => {
    const labelled = (component?: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: `x-${component}`, labels: component ? { 'preview.svc/component': component } : {} },
    });
    const objects = [labelled('service-b'), labelled('service-c'), labelled()];
    expect(inheritedAgain(objects, composition()).map((o) => o.metadata.name)).toEqual(['x-service-c']);
  });

  describe('are looked for', () => {
    const observedAt = (generation: number, components: string[]) =>
      composition(
        { 'service-b': b2 },
        {
          generation: 3,
          observed_generation: generation,
          observed: {
            components: Object.fromEntries(
              components.map((c) => [c, { image: c2, ready: true, generation }]),
            ),
            blockers: [],
            updated_at: null,
          },
        },
      );

    it('not on a create, nor when the previous generation succeeded and no component it forked went', () => {
      expect(mayHaveInherited(composition({}, { observed_generation: 0 }), { generation: 1 })).toBe(false);
      expect(mayHaveInherited(observedAt(2, ['service-b']), { generation: 3 })).toBe(false);
      expect(mayHaveInherited(observedAt(2, []), { generation: 3 })).toBe(false);
    });

    it('when a component the previous generation forked is no longer overridden', () => {
      expect(mayHaveInherited(observedAt(2, ['service-b', 'service-c']), { generation: 3 })).toBe(true);
    });

    it('when an operation in between failed or was superseded, whatever the record names', () => {
      expect(mayHaveInherited(observedAt(1, ['service-b']), { generation: 3 })).toBe(true);
      expect(mayHaveInherited(observedAt(1, []), { generation: 3 })).toBe(true);
    });
  });
});

describe('rolled out', () => {
  const old = image('service-b', '1.0.0');
  const withoutStatus = ({ status: _, ...deployment }: Deployment): Deployment => deployment;

  it('is a Deployment whose controller saw its spec, on the image, with every replica updated and available', () => {
    expect(rolledOut(forkDeployment('service-b', b2, {}, { replicas: 2 }), b2, 'app')).toBe(true);
    expect(rolledOut(forkDeployment('service-b', b2, { conditions: [] }), b2, 'app')).toBe(true);
  });

  it.each([
    ['no Deployment', undefined],
    ['no status yet', withoutStatus(forkDeployment('service-b', b2))],
    [
      'an older observed generation',
      forkDeployment('service-b', b2, { observedGeneration: 1 }, { generation: 2 }),
    ],
    ['another image', forkDeployment('service-b', old)],
    ['a replica not updated', forkDeployment('service-b', b2, { updatedReplicas: 1 }, { replicas: 2 })],
    ['a replica not available', forkDeployment('service-b', b2, { availableReplicas: 0 })],
    ['an old replica still there', forkDeployment('service-b', b2, { replicas: 2 })],
    [
      'a rollout still progressing',
      forkDeployment(
        'service-b',
        b2,
        {},
        { progressing: { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated' } },
      ),
    ],
  ])('is not %s', (_, deployment) => {
    expect(rolledOut(deployment, b2, 'app')).toBe(false);
  });

  it('is complete when every fork is, and at once without forks', () => {
    const forks = target({ 'service-b': b2, 'service-c': c2 }).forks;
    const b = forkDeployment('service-b', b2);
    expect(rolloutComplete([b], forks)).toBe(false);
    expect(rolloutComplete([b, forkDeployment('service-c', c2)], forks)).toBe(true);
    expect(rolloutComplete([], [])).toBe(true);
  });
});

describe('the watch bound', () => {
  const settings = { failureGraceMs: 30_000, watchBoundMs: 3_000 };

  it('is the configured bound on the first look', () => {
    expect(watchBoundMs({ bad_since: {}, ready: null }, settings)).toBe(3_000);
  });

  it('is never longer than the grace, so a fork turning unhealthy during the watch is seen in time', () => {
    expect(watchBoundMs({ bad_since: {}, ready: null }, { failureGraceMs: 1_500, watchBoundMs: 3_000 })).toBe(
      1_550,
    );
  });

  it('is 0 on a later look: the step lists, the invocation is not held while pods start', () => {
    expect(watchBoundMs({ bad_since: {}, ready: 0 }, settings)).toBe(0);
  });
});

describe('the progress deadline', () => {
  const forks = target().forks;

  it('fails a fork whose Deployment gave up, with its message', () => {
    const stalled = forkDeployment(
      'service-b',
      b2,
      {},
      {
        progressing: {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'too slow',
        },
      },
    );
    expect(progressDeadlineFailure([stalled], forks)).toEqual({
      kind: 'fail',
      blockers: [
        {
          code: 'progress_deadline_exceeded',
          message: 'fork of "service-b" made no progress: too slow',
          component: 'service-b',
        },
      ],
    });
  });

  it('lets a progressing or absent fork wait', () => {
    expect(progressDeadlineFailure([forkDeployment('service-b', b2)], forks)).toBeNull();
    expect(progressDeadlineFailure([], forks)).toBeNull();
  });
});

describe('unhealthy forks', () => {
  const fork = { component: 'service-b', image: b2, container: 'app' };

  it("read the waiting reason of the profile's container in the component's pods", () => {
    expect(unhealthyFork([waitingPod('service-b', 'ImagePullBackOff')], fork)).toEqual({
      reason: 'ImagePullBackOff',
      since: undefined,
    });
    expect(
      unhealthyFork([waitingPod('service-b', 'CrashLoopBackOff', { container: 'sidecar' })], fork),
    ).toBeUndefined();
    expect(unhealthyFork([waitingPod('service-c', 'ErrImagePull')], fork)).toBeUndefined();
  });

  it('ignore reasons that pass on their own', () => {
    expect(unhealthyFork([waitingPod('service-b', 'ContainerCreating')], fork)).toBeUndefined();
    expect(unhealthyFork([waitingPod('service-b', 'toString')], fork)).toBeUndefined();
  });

  it("ignore pods of another image: the previous generation's pods are not this rollout's", () => {
    const previous = waitingPod('service-b', 'ImagePullBackOff', { image: image('service-b', '1.9.0') });
    expect(unhealthyFork([previous], fork)).toBeUndefined();
  });

  it('say since when, from the earliest unhealthy pod, by its containers becoming not ready', () => {
    const pods = [
      waitingPod('service-b', 'ImagePullBackOff', { notReadySince: secondsAgo(5) }),
      waitingPod('service-b', 'ErrImagePull', { notReadySince: secondsAgo(12) }),
    ];
    expect(unhealthyFork(pods, fork)).toEqual({ reason: 'ErrImagePull', since: secondsAgo(12) });
  });

  it("fall back to the pod's start time when no condition says", () => {
    const pod = waitingPod('service-b', 'ErrImagePull');
    const started = { ...pod, status: { ...pod.status, startTime: secondsAgo(7) } };
    expect(unhealthyFork([started], fork)?.since).toBe(secondsAgo(7));
  });
});

describe('the failure grace', () => {
  const graceMs = 30_000;
  const pull = { component: 'service-b', image: b2, reason: 'ErrImagePull' as const };

  it('starts when a fork is first seen unhealthy', () => {
    expect(failureGrace([pull], {}, now, graceMs)).toEqual({
      kind: 'within_grace',
      bad_since: { 'service-b': { reason: 'ErrImagePull', since: now.toISOString() } },
    });
  });

  it('keeps when it started while the fork stays unhealthy, whatever the reason now', () => {
    const since = secondsAgo(29);
    const previous = { 'service-b': { reason: 'ImagePullBackOff', since } };
    expect(failureGrace([pull], previous, now, graceMs)).toEqual({
      kind: 'within_grace',
      bad_since: { 'service-b': { reason: 'ErrImagePull', since } },
    });
  });

  it("starts when the fork's pod says it became unhealthy, not when a wait first looked", () => {
    const reported = { ...pull, since: secondsAgo(31) };
    expect(failureGrace([reported], {}, now, graceMs)).toMatchObject({
      kind: 'fail',
      blockers: [{ code: 'image_pull_failed', component: 'service-b' }],
    });
    expect(failureGrace([{ ...pull, since: secondsAgo(10) }], {}, now, graceMs)).toEqual({
      kind: 'within_grace',
      bad_since: { 'service-b': { reason: 'ErrImagePull', since: secondsAgo(10) } },
    });
  });

  it('keeps the earlier of the time a wait saw and the time the pod reports', () => {
    const previous = { 'service-b': { reason: 'ErrImagePull', since: secondsAgo(20) } };
    expect(failureGrace([{ ...pull, since: secondsAgo(5) }], previous, now, graceMs)).toMatchObject({
      bad_since: { 'service-b': { since: secondsAgo(20) } },
    });
  });

  it('starts over for a fork that is no longer unhealthy', () => {
    const previous = { 'service-b': { reason: 'ErrImagePull', since: secondsAgo(60) } };
    expect(failureGrace([], previous, now, graceMs)).toEqual({ kind: 'within_grace', bad_since: {} });
  });

  it('fails with image_pull_failed naming the image once the grace has passed', () => {
    const previous = { 'service-b': { reason: 'ErrImagePull', since: secondsAgo(30) } };
    expect(failureGrace([pull], previous, now, graceMs)).toEqual({
      kind: 'fail',
      blockers: [
        {
          code: 'image_pull_failed',
          message: `image ${b2} of "service-b" cannot be pulled (ErrImagePull)`,
          component: 'service-b',
        },
      ],
    });
  });

  it('fails a crash-looping fork with crash_loop', () => {
    const crash = { component: 'service-c', image: c2, reason: 'CrashLoopBackOff' as const };
    const previous = { 'service-c': { reason: 'CrashLoopBackOff', since: secondsAgo(31) } };
    expect(failureGrace([pull, crash], previous, now, graceMs)).toMatchObject({
      kind: 'fail',
      blockers: [
        { code: 'crash_loop', message: `image ${c2} of "service-c" keeps crashing (CrashLoopBackOff)` },
      ],
    });
  });
});

describe('waiting for the rollout', () => {
  const forks = target({ 'service-b': b2, 'service-c': c2 }).forks;
  const input = {
    forks,
    deployments: [forkDeployment('service-b', b2), forkDeployment('service-c', c2, { availableReplicas: 0 })],
    pods: [],
    observations: { bad_since: {}, ready: null },
    now,
    failureGraceMs: 30_000,
    recheckDelaySeconds: 5,
    operationStart: secondsAgo(60),
  };

  it('notes progress when the number of rolled-out forks changed', () => {
    expect(rolloutWait(input)).toEqual({
      kind: 'wait',
      delaySeconds: 5,
      observations: { bad_since: {}, ready: 1 },
      progress: '1 of 2 forks rolled out',
    });
    expect(rolloutWait({ ...input, observations: { bad_since: {}, ready: 1 } })).not.toHaveProperty(
      'progress',
    );
  });

  it('remembers unhealthy forks, and fails one past its grace', () => {
    const pods = [waitingPod('service-c', 'CrashLoopBackOff')];
    const waiting = rolloutWait({ ...input, pods });
    expect(waiting).toMatchObject({
      kind: 'wait',
      observations: { bad_since: { 'service-c': { since: now.toISOString() } } },
    });
    const observations = {
      bad_since: { 'service-c': { reason: 'CrashLoopBackOff', since: secondsAgo(30) } },
      ready: 1,
    };
    expect(rolloutWait({ ...input, pods, observations })).toMatchObject({
      kind: 'fail',
      blockers: [{ code: 'crash_loop' }],
    });
  });

  it('looks again after the recheck delay, or just after an unhealthy fork’s grace ends if sooner', () => {
    const pods = [waitingPod('service-c', 'ImagePullBackOff', { notReadySince: secondsAgo(27.5) })];
    expect(rolloutWait({ ...input, pods })).toMatchObject({ kind: 'wait', delaySeconds: 3 });
    expect(rolloutWait({ ...input, pods, failureGraceMs: 60_000 })).toMatchObject({ delaySeconds: 5 });
    const almost = [waitingPod('service-c', 'ImagePullBackOff', { notReadySince: secondsAgo(29.9) })];
    expect(rolloutWait({ ...input, pods: almost })).toMatchObject({ delaySeconds: 1 });
  });

  it("counts the grace from the pod's own time, but never from before the operation started", () => {
    const pods = [waitingPod('service-c', 'ImagePullBackOff', { notReadySince: secondsAgo(31) })];
    expect(rolloutWait({ ...input, pods })).toMatchObject({
      kind: 'fail',
      blockers: [{ code: 'image_pull_failed' }],
    });
    expect(rolloutWait({ ...input, pods, operationStart: secondsAgo(10) })).toMatchObject({
      kind: 'wait',
      observations: { bad_since: { 'service-c': { since: secondsAgo(10) } } },
    });
  });
});

describe('finishing', () => {
  const check = (generation: number, status: CheckRecord['status']): CheckRecord => ({
    id: 'chk-1',
    composition_id: 'c-1',
    kind: CheckKind.Routing,
    generation,
    status,
    message: '',
    ran_at: now.toISOString(),
    target: null,
    http_status: 200,
    coverage: {},
    fingerprint: { inputs: {}, hash: 'h' },
  });
  const record = composition({ 'service-b': b2, 'service-c': c2 }, { phase: Phase.Updating, generation: 2 });
  const finish = (latestCheck: CheckRecord | undefined, changes = {}) =>
    rolloutFinished({
      composition: { ...record, ...changes },
      operation: { generation: 2 },
      forks: [forkDeployment('service-b', b2), forkDeployment('service-c', c2, { availableReplicas: 0 })],
      latestCheck,
      subscriptions: [{ component: 'service-b', topic: 't', queue_url: 'q', ready: true }],
      now,
    });

  it('makes a rollout ready at its generation with what is observed now', () => {
    expect(finish(check(2, CheckStatus.Passed))).toMatchObject({
      phase: Phase.Ready,
      observed_generation: 2,
      observed: {
        components: {
          'service-b': { image: b2, ready: true, generation: 2 },
          'service-c': { image: c2, ready: false, generation: 2 },
        },
        blockers: [],
        updated_at: now.toISOString(),
      },
      public_ready: true,
      message_subscriptions: null,
    });
  });

  it("is publicly ready unless this generation's latest check failed", () => {
    expect(finish(check(2, CheckStatus.Failed)).public_ready).toBe(false);
    expect(finish(check(2, CheckStatus.Unknown)).public_ready).toBe(true);
    expect(finish(check(1, CheckStatus.Failed)).public_ready).toBe(true);
    expect(finish(undefined).public_ready).toBe(true);
  });

  it('reports message subscriptions only with message isolation', () => {
    expect(finish(undefined, { message_isolation: true }).message_subscriptions).toHaveLength(1);
  });

  it('ends a destroy destroyed, not public, with nothing observed', () => {
    expect(destroyFinished(record, now)).toMatchObject({
      phase: Phase.Destroyed,
      destroyed_at: now.toISOString(),
      public_ready: false,
      observed: { components: {}, blockers: [], updated_at: now.toISOString() },
    });
  });
});
