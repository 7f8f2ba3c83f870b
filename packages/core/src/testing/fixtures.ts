/**
 * Plain data for unit tests of core's rules: a small catalog (built by the real manifest schema and
 * versioning), a composition and operation as stored, and cluster objects as the API answers them.
 */
import * as v from 'valibot';
import { nextProjectVersion, type ProjectVersion } from '../catalog/model.ts';
import { ProjectManifest } from '../catalog/schema.ts';
import type { Condition, Deployment, Pod } from '../cluster/objects.ts';
import { Label } from '../cluster/objects.ts';
import { type CompositionRecord, Phase } from '../compositions/model.ts';
import { noFeedback, type PreviewRecord, PreviewState } from '../forge/model.ts';
import { type Operation, OperationKind, OperationStatus, OwnerKind } from '../operations/model.ts';
import { newOperation } from '../operations/state.ts';

export const now = new Date('2026-03-01T12:00:00.000Z');
export const image = (component: string, tag: string) => `registry.example.com/demo/${component}:${tag}`;

/**
 * service-a (the entry) → service-b → service-c, baseline `staging` with two replicas of
 * service-b: the manifest as sent, its entries plain records so a test can change any field.
 */
export function demoProject(changes: { messaging?: boolean } = {}): {
  name: string;
  default_baseline: string;
  components: Record<string, unknown>[];
  baselines: Record<string, unknown>[];
} {
  const names = ['service-a', 'service-b', 'service-c'];
  return {
    name: 'demo',
    default_baseline: 'staging',
    components: names.map((name, index) => ({
      name,
      workload: { name, container: 'app' },
      port: 8080,
      service: { name, port: 80 },
      dependencies: names.slice(index + 1, index + 2),
      resources: { cpu_millicores: 100, memory_mib: 64 },
      verification: { path: '/health', expect_status: 200 },
    })),
    baselines: [
      {
        name: 'staging',
        namespace: 'staging',
        cluster: 'local',
        preview_domain: 'preview.localhost',
        entry_component: 'service-a',
        components: {
          'service-a': { image: image('service-a', '1.0.0') },
          'service-b': { image: image('service-b', '1.0.0'), replicas: 2 },
          'service-c': { image: image('service-c', '1.0.0') },
        },
        messaging: changes.messaging ? { topics: ['demo-events'] } : null,
      },
    ],
  };
}

/** The demo project as the catalog holds it after its first apply. */
export function demoCatalog(changes: { messaging?: boolean } = {}): ProjectVersion {
  const manifest = v.parse(ProjectManifest, demoProject(changes));
  const version = nextProjectVersion(null, manifest, now.toISOString(), 'version-1');
  if (!version) throw new Error('a first version always exists');
  return version;
}

/** A composition overriding `images` (component → image), ready at generation 1 unless changed. */
export function composition(
  images: Record<string, string> = { 'service-b': image('service-b', '2.0.0') },
  changes: Partial<CompositionRecord> = {},
): CompositionRecord {
  const at = now.toISOString();
  return {
    id: 'c-1',
    project: 'demo',
    baseline: 'staging',
    namespace: 'staging',
    name: 'feature',
    owner: { kind: OwnerKind.User, subject: 'dev@example.com' },
    generation: 1,
    observed_generation: 1,
    phase: Phase.Ready,
    ttl_seconds: 3600,
    expires_at: '2026-03-01T13:00:00.000Z',
    created_at: at,
    updated_at: at,
    message_isolation: false,
    overrides: Object.fromEntries(Object.entries(images).map(([c, i]) => [c, { image: i, build_id: null }])),
    desired: {
      images: Object.fromEntries(
        Object.entries(images).map(([c, i]) => [
          c,
          { image: i, source: 'image', build_id: null, digest: null },
        ]),
      ),
      inherited: [],
      profile_revisions: {},
      catalog_version: 1,
      catalog_version_id: 'version-1',
    },
    observed: { components: {}, blockers: [], updated_at: null },
    public_url: 'http://c-1.preview.localhost:8082/',
    public_ready: true,
    latest_operation: { id: 'op-1', kind: OperationKind.Create, status: OperationStatus.Succeeded },
    active_operation: null,
    epoch: 1,
    message_subscriptions: null,
    destroyed_at: null,
    lock_version: 3,
    ...changes,
  };
}

/** `record` with a new operation of `kind` active, as the API leaves it. */
export function withOperation(
  record: CompositionRecord,
  kind: OperationKind,
): { composition: CompositionRecord; operation: Operation } {
  const epoch = record.epoch + 1;
  const operation = newOperation(record.id, kind, record.generation, epoch, record.owner, now);
  const phase = { create: Phase.Created, update: Phase.Updating, destroy: Phase.Destroying }[kind];
  return {
    composition: {
      ...record,
      phase,
      epoch,
      active_operation: operation.id,
      latest_operation: { id: operation.id, kind, status: operation.status },
    },
    operation,
  };
}

/** A fork Deployment of `component` running `image`, fully rolled out unless `status` says otherwise. */
export function forkDeployment(
  component: string,
  image: string,
  status: Partial<NonNullable<Deployment['status']>> = {},
  options: { replicas?: number; generation?: number; progressing?: Condition } = {},
): Deployment {
  const replicas = options.replicas ?? 1;
  const generation = options.generation ?? 1;
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: `${component}-c-1`,
      namespace: 'staging',
      generation,
      labels: { [Label.Composition]: 'c-1', [Label.Component]: component },
    },
    spec: {
      replicas,
      selector: { matchLabels: { [Label.Composition]: 'c-1', [Label.Component]: component } },
      template: { spec: { containers: [{ name: 'app', image }] } },
    },
    status: {
      observedGeneration: generation,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        options.progressing ?? { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
      ...status,
    },
  };
}

/** A fork pod of `component` whose container `container` waits for `reason`. */
/**
 * A fork pod whose container waits for `reason`, running `image` (default: the component at
 * 2.0.0); `notReadySince` is its `ContainersReady` condition's transition to False.
 */
export function waitingPod(
  component: string,
  reason: string,
  options: { container?: string; image?: string; notReadySince?: string } = {},
): Pod {
  const container = options.container ?? 'app';
  const podImage = options.image ?? image(component, '2.0.0');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: `${component}-c-1-abc`, labels: { [Label.Component]: component } },
    spec: { containers: [{ name: container, image: podImage }] },
    status: {
      ...(options.notReadySince
        ? {
            conditions: [
              { type: 'ContainersReady', status: 'False', lastTransitionTime: options.notReadySince },
            ],
          }
        : {}),
      containerStatuses: [
        { name: container, image: podImage, ready: false, restartCount: 3, state: { waiting: { reason } } },
      ],
    },
  };
}

/** A head commit's SHA made of one repeated digit: `sha('1')`. */
const sha = (digit: string) => digit.repeat(40);

/** A ready pull-request preview as stored: demo-org/service-b#7 at `sha('1')`, composition c-1, nothing written back yet. */
export function previewRecord(changes: Partial<PreviewRecord> = {}): PreviewRecord {
  return {
    id: 'pr-x',
    project: 'demo',
    repository: 'demo-org/service-b',
    number: 7,
    state: PreviewState.Ready,
    head_sha: sha('1'),
    head_ref: 'feature',
    fork: false,
    builds: { 'service-b': 'b-1' },
    deployed_sha: sha('1'),
    composition_id: 'c-1',
    change_id: null,
    url: 'http://c-1.preview.localhost/',
    expires_at: null,
    last_error: null,
    suppressed: false,
    restart_pending: false,
    feedback: noFeedback,
    poll_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    lock_version: 1,
    ...changes,
  };
}
