/**
 * The worker's dependencies in memory, for its unit tests: the composition store and queue of
 * memory-store.ts, a cluster holding the demo baseline (memory-cluster.ts), the demo catalog, a
 * probe that answers as the preview gateway would route, and what was logged and counted. Ports
 * the step jobs never use fail the test if they are called.
 */
import { Auth, Catalog, Cluster, Compositions, type Messaging } from '@svc/core';
import * as v from 'valibot';
import { defaultWorkerSettings, type WorkerDeps, type WorkerSettings } from '../deps.ts';
import { countingMetrics } from '../metrics.ts';
import type { Probe } from '../prober.ts';
import { type MemoryCluster, memoryCluster } from './memory-cluster.ts';
import { type MemoryStore, memoryQueue, memoryStore } from './memory-store.ts';

const namespace = 'staging';
const baselineImage = (component: string) => `registry.example.com/demo/${component}:1.0.0`;
export const image = (component: string, tag: string) => `registry.example.com/demo/${component}:${tag}`;

/** service-a (the entry) → service-b → service-c, as the demo catalog holds them. */
const components = ['service-a', 'service-b', 'service-c'];

function demoCatalog(): Catalog.ProjectVersion {
  const entry = <T>(spec: T) => ({ spec, revision: 1, hash: 'h' });
  const profiles = components.map((name, i) =>
    v.parse(Catalog.ComponentProfile, {
      name,
      workload: { name, container: 'app' },
      port: 8080,
      service: { name, port: 80 },
      dependencies: components.slice(i + 1, i + 2),
    }),
  );
  const baseline = v.parse(Catalog.Baseline, {
    name: 'staging',
    namespace,
    cluster: 'local',
    preview_domain: 'preview.localhost',
    entry_component: 'service-a',
    components: Object.fromEntries(components.map((c) => [c, { image: baselineImage(c) }])),
    messaging: { topics: ['demo-events'] },
  });
  return {
    project: 'demo',
    version: 1,
    version_id: 'version-1',
    default_baseline: 'staging',
    hash: 'h',
    applied_at: '2026-03-01T12:00:00.000Z',
    components: Object.fromEntries(profiles.map((p) => [p.name, entry(p)])),
    baselines: { staging: entry(baseline) },
  };
}

/** The baseline's Deployment and Service of each component, as the operator runs them. */
function baselineObjects(): Cluster.ClusterObject[] {
  return components.flatMap((name) => [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels: { app: name } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'app', image: baselineImage(name) }] },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { selector: { app: name }, ports: [{ port: 80, targetPort: 8080 }] },
    },
  ]);
}

/**
 * What the preview gateway answers for composition `id`: each component, from the entry along its
 * dependencies, served by its fork once the fork has its mesh route, else by the baseline.
 */
function gatewayProbe(cluster: MemoryCluster): Probe {
  return async (url) => {
    const id = new URL(url).hostname.split('.')[0] ?? '';
    const selector = Cluster.compositionSelector(id);
    const routes = await cluster.list(
      namespace,
      [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute' }],
      selector,
    );
    const forks = await cluster.listDeployments(namespace, selector);
    const componentOf = (object: Cluster.ClusterObject) => object.metadata.labels?.['preview.svc/component'];
    const served = (component: string) => {
      const fork = forks.find((d) => componentOf(d) === component);
      const routed = routes.some((r) => componentOf(r) === component);
      return fork && routed ? fork.spec.template.spec.containers[0]?.image : baselineImage(component);
    };
    const hop = (i: number): unknown => {
      const component = components[i] as string;
      const calls = i + 1 < components.length ? [{ status: 200, body: hop(i + 1) }] : [];
      return { component, image: served(component), calls };
    };
    return { status: 200, body: hop(0), error: null };
  };
}

/** Isolated queues in memory; `failRemoval` makes removals fail (a topic that refuses the worker). */
function memoryMessaging(): Messaging.MessagingPort & { failRemoval(error: Error): void } {
  let removalFailure: Error | null = null;
  return {
    failRemoval(error) {
      removalFailure = error;
    },
    ensureIsolatedQueue: async ({ name }) => ({ name, queue_url: `http://sqs.local/${name}`, ready: true }),
    queuedMessages: async () => 0,
    async removeIsolatedQueues() {
      if (removalFailure) throw removalFailure;
      return { removed: [], leftovers: [] };
    },
  };
}

const unusedCall = (what: string) => () => Promise.reject(new Error(`the step jobs do not use ${what}`));

/** A port the step jobs never use: any use of it fails the test that made it. */
const unused = <T extends object>(port: string): T =>
  new Proxy({} as T, {
    get(_target, member) {
      throw new Error(`the step jobs do not use ${port}.${String(member)}`);
    },
  });

export interface MemoryWorker {
  deps: WorkerDeps;
  store: MemoryStore;
  cluster: MemoryCluster;
  queue: ReturnType<typeof memoryQueue>;
  messaging: ReturnType<typeof memoryMessaging>;
  metrics: ReturnType<typeof countingMetrics>;
  logged: Record<string, unknown>[];
}

export function memoryWorker(settings: Partial<WorkerSettings> = {}): MemoryWorker {
  const store = memoryStore();
  const queue = memoryQueue();
  const cluster = memoryCluster(baselineObjects());
  const messaging = memoryMessaging();
  const metrics = countingMetrics();
  const logged: Record<string, unknown>[] = [];
  const catalog = demoCatalog();
  const deps: WorkerDeps = {
    compositions: store,
    checks: store.checkStore,
    catalog: {
      readProject: async (project) => (project === catalog.project ? catalog : null),
      readVersion: async (project, versionId) =>
        project === catalog.project && versionId === catalog.version_id ? catalog : null,
      listProjects: unusedCall('catalog.listProjects'),
      commit: unusedCall('catalog.commit'),
      claimNamespaces: unusedCall('catalog.claimNamespaces'),
      heldNamespaces: unusedCall('catalog.heldNamespaces'),
      releaseNamespaces: unusedCall('catalog.releaseNamespaces'),
    },
    builds: unused('builds'),
    idempotency: unused('idempotency'),
    jobs: queue,
    clusters: Cluster.clusterRegistry(new Map([['local', cluster]])),
    messaging,
    clock: { now: () => new Date() },
    probe: gatewayProbe(cluster),
    previewUrl: (id, domain) => `http://${id}.${domain}:8082/`,
    settings: {
      ...defaultWorkerSettings,
      watchBoundMs: 50,
      recheckDelaySeconds: 1,
      verifyAttempts: 1,
      ...settings,
    },
    log: (entry) => logged.push(entry),
    metrics,
    audit: unused('audit'),
    forge: null,
    forgeStore: unused('forgeStore'),
    forgeSettings: unused('forgeSettings'),
  };
  return { deps, store, cluster, queue, messaging, metrics, logged };
}

/** Creates a composition overriding `service-b` with `image` through core's use case, as the API does. */
export async function createComposition(
  worker: MemoryWorker,
  image: string,
  body: { message_isolation?: boolean } = {},
): Promise<{ composition: Compositions.CompositionRecord; job: string }> {
  const answer = await Compositions.create(
    worker.deps,
    Auth.devIdentity,
    {
      project: 'demo',
      baseline: 'staging',
      name: 'feature',
      overrides: { 'service-b': { image } },
      message_isolation: false,
      expected_preview_revisions: {},
      ...body,
    },
    null,
  );
  return { composition: await stored(worker, answer.body.id), job: sentJob(worker) };
}

/** Destroys the composition through core's use case, as the API does. */
export async function destroyComposition(worker: MemoryWorker, id: string): Promise<string> {
  await Compositions.destroy(
    worker.deps,
    { actor: { kind: 'user', subject: 'admin' }, grants: Auth.devIdentity.grants },
    id,
  );
  return sentJob(worker);
}

export async function stored(worker: MemoryWorker, id: string): Promise<Compositions.CompositionRecord> {
  const composition = await worker.store.get(id);
  if (!composition) throw new Error(`no composition ${id}`);
  return composition;
}

/** The oldest job sent and not yet taken, as the queue's message body. */
export function sentJob(worker: MemoryWorker): string {
  const sent = worker.queue.sent.shift();
  if (!sent) throw new Error('no job was sent');
  return JSON.stringify(sent.job);
}
