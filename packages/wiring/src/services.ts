/**
 * The one composition root: what the API, the worker and the local stack run on, built the same
 * way from their settings. What differs between them is an adapter they pass: the cluster (the
 * API's loads its client on first use), messaging (only the worker has an SNS client), deadlines,
 * the log, a test clock, wrappers.
 */
import { randomBytes } from 'node:crypto';
import {
  type AwsClients,
  type AwsServiceSettings,
  type AwsSettings,
  type AwsStores,
  type AwsTimeouts,
  awsStores,
  createAwsClients,
  dynamodbCheck,
  sqsCheck,
  sqsDeadLetterQueue,
} from '@svc/aws';
import {
  Auth,
  type Catalog,
  type Clock,
  Cluster,
  type Compositions,
  Forge,
  Health,
  type Jobs,
  type Log,
  type Messaging,
  type MetricsSink,
  Rollout,
  systemClock,
} from '@svc/core';
import { forgeWiring, webhookCheck } from '@svc/github';
import type { ClusterSettings, KubeSettings } from '@svc/kube/settings';
import type { ServiceSettings } from './settings.ts';

/** The AWS clients of a process and the settings they were built with (for clients only some build). */
interface AwsAccess {
  settings: AwsSettings;
  clients: AwsClients;
}

/** The clients, every store as the adapters built it (before any wrapper), and what they are on. */
export interface Storage extends AwsAccess {
  stores: AwsStores;
  names: AwsServiceSettings['names'];
}

/** What the process around the services decides. */
export interface StorageAdapters {
  /** Deadlines of every AWS call (default `awsTimeouts`): the API's are shorter, the emulators' longer. */
  timeouts?: AwsTimeouts;
  /** Default the system's; tests move one of their own. */
  clock?: Clock;
  /** Sees every AWS client as it is built: the local stack holds each to its function's IAM policy. */
  instrumentClients?: (clients: AwsClients) => void;
}

export interface Adapters<TMessaging extends Messaging.MessagingPort | null> extends StorageAdapters {
  /**
   * A cluster the settings name, called once per cluster: the API's lazy one, the worker's, the
   * local stack's. The registry keeps what it answers, so each cluster has one client per process.
   */
  cluster: (settings: ClusterSettings) => Cluster.ClusterPort;
  /** Message isolation: the worker's SNS client; the API publishes nothing, so its bundle carries none. */
  messaging: (aws: AwsAccess) => TMessaging;
  log: Log;
  /** Counts accepted compositions (embedded metrics on Lambda). */
  metrics?: MetricsSink;
  /** Wraps the job queue every use case sends to (tests make sends fail). */
  wrapJobs?: (jobs: Jobs.JobQueue) => Jobs.JobQueue;
  /** Forge timings (default `Forge.defaultForgeSettings`; tests poll faster). */
  forgeSettings?: Partial<Forge.ForgeSettings>;
  /** The cost of the password hashes written (default OWASP's; the local stack's tests pay less). */
  passwordCost?: Auth.ScryptCost;
}

/** The use cases' dependencies (every store, wrapped where told), and what the entries add to them. */
export interface Services<TMessaging> extends AwsStores, Forge.ForgeDeps {
  /** The rollout's store: the worker writes a step's check with the step. */
  compositions: Rollout.RolloutStore;
  aws: Storage;
  /** Every cluster the settings name, by the name baselines give it. */
  clusters: Cluster.ClusterRegistry;
  messaging: TMessaging;
  /** Checks a delivery's signature; null without webhook secrets (every delivery refused). */
  verify: Forge.SignatureCheck | null;
  /** What /v1/forge/status says of the app's configuration (presence only, never a secret). */
  forgeConfiguration: Forge.ForgeConfiguration;
  previewUrl: (id: string, domain: string, cluster: string) => string;
  /** What a catalog may name: the stage's message topics, where baselines may be, its clusters. */
  manifestLimits: Catalog.ManifestLimits;
  previewQueuePrefix: string;
  /** The stage's sleep default, maximum and crawler list. */
  sleep: Compositions.SleepSettings;
  /** Whether the routing check may connect to loopback, link-local and private addresses. */
  previewPrivateAddresses: boolean;
  /** The job queue's dead-letter queue, where the settings name it (the API's replay). */
  deadLetters: Jobs.DeadLetterQueue | null;
  passwords: Auth.PasswordHashing;
  /** What `/healthz` asks: the table, the job queue, each cluster (`cluster:<name>`). */
  health: Health.DependencyCheck[];
  build: { release: string; commit: string };
}

/** The clients and stores on the table and queues the settings name. */
export function wireStorage(settings: AwsServiceSettings, adapters: StorageAdapters): Storage {
  const aws = { ...settings.client, ...(adapters.timeouts ? { timeouts: adapters.timeouts } : {}) };
  const clients = createAwsClients(aws);
  adapters.instrumentClients?.(clients);
  // Without CURSOR_KEY the process hands out no cursor, so one of its own seals any it pages with.
  const cursorKey = settings.cursorKey ?? randomBytes(48).toString('base64');
  const stores = awsStores(clients, settings.names, adapters.clock ?? systemClock, cursorKey);
  return { settings: aws, clients, stores, names: settings.names };
}

/** What a catalog may name: the aws part's grants, with each cluster's own scope and namespaces. */
function manifestLimitsOf(
  granted: AwsServiceSettings['manifestLimits'],
  kube: KubeSettings,
  clusters: readonly string[],
): Catalog.ManifestLimits {
  const byCluster = Object.fromEntries(
    kube.clusters.flatMap((c) => (c.access.previewNamespaces ? [[c.name, c.access.previewNamespaces]] : [])),
  );
  const clusterScopes = Object.fromEntries(
    kube.clusters.map((c) => [
      c.name,
      { projects: c.access.projects, previewDomains: c.access.previewDomains },
    ]),
  );
  return { ...granted, namespaces: { ...granted.namespaces, byCluster }, clusters, clusterScopes };
}

/** A composition's URL: its cluster's template (its own gateway), else the stage's. */
function previewUrlOf(template: string, kube: KubeSettings): Services<unknown>['previewUrl'] {
  const templates = new Map(kube.clusters.map((c) => [c.name, c.previewUrlTemplate ?? template]));
  return (id, domain, cluster) =>
    (templates.get(cluster) ?? template).replaceAll('{id}', id).replaceAll('{domain}', domain);
}

/** Each cluster's port, built once here and kept by the registry. */
function wireClusters(kube: KubeSettings, build: (settings: ClusterSettings) => Cluster.ClusterPort) {
  return Cluster.clusterRegistry(new Map(kube.clusters.map((c) => [c.name, build(c.where)])));
}

/** One `/healthz` probe per cluster, named after it. */
function clusterChecks(clusters: Cluster.ClusterRegistry): Health.DependencyCheck[] {
  return clusters.names.flatMap((name) => {
    const found = clusters.lookup(name);
    return found.known ? [{ name: Health.clusterDependency(name), check: found.cluster.health.check }] : [];
  });
}

/** Everything the API, the worker and the sweeps run on, from the settings and the process's adapters. */
export function wireServices<TMessaging extends Messaging.MessagingPort | null>(
  settings: Pick<ServiceSettings, 'aws' | 'kube' | 'github' | 'origin'>,
  adapters: Adapters<TMessaging>,
): Services<TMessaging> {
  const aws = wireStorage(settings.aws, adapters);
  const { clients, stores, names } = aws;
  const clusters = wireClusters(settings.kube, adapters.cluster);
  const forge = forgeWiring(settings.github);
  return {
    ...stores,
    compositions: adapters.metrics
      ? Rollout.observedCompositionStore(stores.compositions, adapters.metrics)
      : stores.compositions,
    jobs: adapters.wrapJobs ? adapters.wrapJobs(stores.jobs) : stores.jobs,
    aws,
    clock: adapters.clock ?? systemClock,
    log: adapters.log,
    clusters,
    messaging: adapters.messaging(aws),
    forge: forge.forge,
    verify: forge.verify,
    forgeConfiguration: forge.configuration,
    forgeSettings: {
      ...Forge.defaultForgeSettings,
      consoleOrigin: settings.origin.publicOrigin,
      ...adapters.forgeSettings,
    },
    previewUrl: previewUrlOf(settings.aws.previewUrlTemplate, settings.kube),
    manifestLimits: manifestLimitsOf(settings.aws.manifestLimits, settings.kube, clusters.names),
    previewQueuePrefix: settings.aws.previewQueuePrefix,
    sleep: settings.aws.sleep,
    previewPrivateAddresses: settings.aws.previewPrivateAddresses,
    passwords: Auth.passwordHashing(adapters.passwordCost),
    deadLetters: names.deadLetterQueueUrl ? sqsDeadLetterQueue(clients.sqs, names.deadLetterQueueUrl) : null,
    health: [
      dynamodbCheck(clients.dynamodb, names.tableName),
      sqsCheck(clients.sqs, names.jobQueueUrl),
      ...clusterChecks(clusters),
    ],
    build: settings.aws.build,
  };
}

/**
 * The webhook function's: the delivery store, the job queue and the signature check. No cluster,
 * and of the app only its webhook secrets: it never acts on GitHub.
 */
export function wireWebhook(
  settings: Pick<ServiceSettings, 'aws' | 'github'>,
  adapters: StorageAdapters & { log: Log },
) {
  const { stores } = wireStorage(settings.aws, adapters);
  return {
    forgeStore: stores.forgeStore,
    jobs: stores.jobs,
    clock: adapters.clock ?? systemClock,
    forgeSettings: Forge.defaultForgeSettings,
    log: adapters.log,
    // The check alone: the webhook never acts on GitHub, so its bundle carries no GitHub client.
    verify: webhookCheck(settings.github.webhookSecrets),
  };
}
