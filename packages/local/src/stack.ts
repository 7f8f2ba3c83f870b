import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SNSClient } from '@aws-sdk/client-sns';
import { createWebhookApp, listenNode, serviceApp } from '@svc/api';
import {
  type AwsClients,
  type AwsStores,
  createAwsClients,
  createSnsClient,
  snsSqsMessaging,
} from '@svc/aws';
import {
  Auth,
  Catalog,
  type Clock,
  type Cluster,
  Compositions,
  type Forge,
  type Log,
  type Messaging,
  Resources,
  silentLog,
} from '@svc/core';
import { clusterFromSettings } from '@svc/kube';
import { localClusterName } from '@svc/kube/settings';
import type { LocalCluster } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import {
  ServiceSettings,
  type Services,
  settingsFromEnvironment,
  wireServices,
  wireWebhook,
} from '@svc/wiring';
import {
  countingMetrics,
  defaultWorkerSettings,
  handleJob,
  httpProbe,
  type Poller,
  type Scheduler,
  startPoller,
  startScheduler,
  sweeps,
  type WorkerDeps,
  type WorkerSettings,
} from '@svc/worker';
import { type LocalAuthOptions, localAuth, localUsers, seedUsers } from './auth.ts';
import {
  checkOutsideClusters,
  clusterVariables,
  gatewayTemplate,
  type LocalClusterAccess,
  type LocalClusterRun,
  localClusterNames,
  type NamedOutsideCluster,
  nameOutsideClusters,
  type OutsideCluster,
  restartLocalCluster,
  startLocalClusters,
} from './clusters.ts';
import {
  demoBaselineOn,
  demoManifest,
  deployBaselineOf,
  deployDemoBaseline,
  seedDemoCatalog,
  setUpDemoMessaging,
} from './demo.ts';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { startSqsEmulator } from './fauxqs.ts';
import { type LocalForgeOptions, seedDemoPolicy, startStackForge } from './forge.ts';
import { FunctionName, type FunctionPolicies, functionPolicies } from './function-policies.ts';
import type { LocalIdentityProvider } from './identity-provider.ts';
import { type ProvisionedResources, provision } from './provision.ts';
import { enforceSnsQuotas } from './sns-quotas.ts';

export interface StackOptions {
  host?: string;
  /** Where baselines may be (default: anywhere but the cluster's own namespaces and svc-system). */
  namespaces?: Catalog.NamespacePolicy;
  /** What each cluster takes (projects, namespaces, preview domains), as a stage's `clusterAccess`. */
  clusterAccess?: Readonly<Record<string, LocalClusterAccess>>;
  /** The domains previews answer on (default: the local clusters' `preview.localhost`). */
  previewDomains?: readonly string[];
  /**
   * Whether the routing check may reach loopback and private addresses: the local stack's gateways
   * are on 127.0.0.1, so it says so (default true); false to see the check refuse them.
   */
  previewPrivateAddresses?: boolean;
  /** API port; 0 picks a free one. */
  port?: number;
  /**
   * Preview gateway port of `local`; absent or 0 picks free ones (`npm start` asks for 8082, and
   * for `local-2`… two and more above it: `gatewayPortOf`).
   */
  gatewayPort?: number;
  /** The stack's own local clusters: `local`, and from 2 on `local-2`…, each with a demo baseline (default 1). */
  clusters?: number;
  /**
   * Clusters of the team's own, reached only through their kubeconfig (`npm start -- --kubeconfig`):
   * each is checked as `svc installation check` would before the stack uses it, and refused if it fails.
   */
  outsideClusters?: readonly OutsideCluster[];
  /** Keep state here across restarts (DynamoDB Local, fauxqs, the cluster); absent = in memory (tests). */
  stateDir?: string;
  /** Reuse running emulators (the test harness shares one of each per run). */
  emulators?: { dynamodbEndpoint: string; sqsEndpoint: string };
  /** Prefix for the table and queue names, isolating test files on shared emulators. */
  resourcePrefix?: string;
  log?: Log;
  /** Time for the API, worker and sweeps; tests move it instead of sleeping. */
  clock?: Clock;
  /** Run the queue poller (default true); tests of the queue itself turn it off. */
  worker?: boolean;
  /** Seed the demo catalog and deploy its baseline (default true). */
  seed?: boolean;
  /** Wrap the job queue, e.g. to make sends fail in a test. */
  wrapJobs?: (jobs: Compositions.JobQueue) => Compositions.JobQueue;
  /** Wrap the composition store the worker writes through, e.g. to crash between a cluster write and its record. */
  wrapWorkerStore?: (store: Compositions.CompositionStore) => Compositions.CompositionStore;
  /** Base of the poller's retry backoff in seconds (default 1); 0 retries at once. */
  retryBaseSeconds?: number;
  /** Auth mode: `dev` (default), or any other; password and oidc come with seeded users. */
  authMode?: Auth.AuthMode;
  /** The mode's settings and seeded people (see `localAuth`). */
  auth?: Omit<LocalAuthOptions, 'mode'>;
  /** The cost of the password hashes written (default OWASP's, as deployed). */
  passwordCost?: Auth.ScryptCost;
  /** Local cluster: time for a healthy pod to become Ready (default 1000 ms). */
  podReadyDelayMs?: number;
  workerSettings?: Partial<WorkerSettings>;
  /** Release and commit `/version` reports (default: `dev`, `unknown`). */
  build?: { release: string; commit: string };
  /** The local forge (a GitHub stand-in with the app installed on demo-org/service-b); false: none. */
  forge?: LocalForgeOptions | false;
  /** Forge timings (tests poll faster). */
  forgeSettings?: Partial<Forge.ForgeSettings>;
  /** Seals page cursors (default: {@link localCursorKey}). */
  cursorKey?: string;
  /**
   * The stage's `messageTopics`: what the catalog may name and the worker's policy grants (default:
   * the demo's topic).
   */
  messageTopics?: readonly string[];
}

/** The demo baseline's topic (packages/local/demo/catalog.json), granted unless told otherwise. */
const demoMessageTopics: readonly string[] = ['demo-events'];

/**
 * The local stack's cursor key. Not a secret: a cursor only names a position in a list, the seal
 * binds it to its list, and the local stack listens on loopback only. Installations configure
 * their own (`CURSOR_KEY`).
 */
export const localCursorKey = 'local-stack-cursor-key-not-a-secret';

export interface Stack {
  readonly apiUrl: string;
  /** oidc mode's local identity provider. */
  readonly identityProvider: LocalIdentityProvider | null;
  readonly authSettings: Auth.AuthSettings;
  /** `local`'s preview gateway, API server and the operator's kubeconfig (YAML, an admin). */
  readonly gatewayUrl: string;
  readonly clusterUrl: string;
  readonly kubeconfig: string;
  readonly resources: ProvisionedResources;
  readonly endpoints: { dynamodb: string; sqs: string };
  readonly scheduler: Scheduler;
  /** Every store as the API built it, before the test's wrappers. */
  readonly stores: AwsStores;
  /**
   * The emulators as the operator reaches them, held to no function's policy: what tests publish,
   * drain, seed and look with. (SNS's quotas hold all the same.)
   */
  readonly clients: AwsClients & { sns: ReturnType<typeof createSnsClient> };
  /** The clients each function's services run on, each held to that function's IAM policy. */
  readonly functionClients: FunctionClients;
  /** Who each function is to IAM, and the policy it is held to (a test may narrow one). */
  readonly policies: Pick<FunctionPolicies, 'identity' | 'edit'>;
  /** `local` as its operator (an admin) reaches it: what a test arranges or inspects there. */
  readonly cluster: Cluster.ClusterPort;
  /** Every cluster the API uses (the local ones with its identity, the outside ones), by name. */
  readonly clusters: Cluster.ClusterRegistry;
  readonly localCluster: LocalCluster;
  /** The stack's own local cluster of that name (`local`, `local-2`…), as it runs now. */
  localClusterOf(name: string): LocalClusterRun;
  /**
   * Stops that local cluster and starts it again, with its state, on the same ports (not `local` in
   * a stack without state: it is kept in memory).
   */
  restartCluster(name: string): Promise<void>;
  /** The local forge, unless turned off. */
  readonly forge: LocalForge | null;
  /** What the worker runs with, for driving its Lambda handler in tests. */
  readonly workerDeps: WorkerDeps;
  /** What the worker counted (messages for unknown operations, lost chain writes). */
  workerCounts(): Readonly<Record<string, number>>;
  /** Runs one job message the way the poller does; tests use it to deliver a message twice. */
  handle(body: string, receiveCount?: number): Promise<void>;
  /**
   * The topics the worker's IAM policy grants from now on, leaving the catalog's view alone: a
   * stage redeployed with other `messageTopics` after the catalog was applied.
   */
  grantWorkerTopics(topics: readonly string[]): void;
  stop(): Promise<void>;
}

const region = 'us-east-1';

/** Emulators on a busy laptop (or a test run on two cores) answer slower than AWS: longer deadlines. */
export const emulatorTimeouts = { connectionMs: 5000, requestMs: 20_000 };

type Cleanups = (() => Promise<void>)[];

/** The whole service on one machine: emulators (unless given), local cluster, resources, API, worker and schedules. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? silentLog;
  const host = options.host ?? '127.0.0.1';
  const cleanups: Cleanups = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const outside = nameOutsideClusters(
      options.outsideClusters ?? [],
      localClusterNames(options.clusters ?? 1),
    );
    const infrastructure = await startInfrastructure(options, host, cleanups);
    // The API listens first: every mode but dev needs the origin it answers on (its public origin).
    // It answers 503 until the stack is whole (catalog seeded, worker running), so nothing reaches
    // a half-started stack.
    const front = await startFront(options, host, log, cleanups);
    const auth = await startAuth(options, host, front.apiUrl, cleanups);
    const environment = stackEnvironment(options, infrastructure, outside, front.forge, auth.environment);
    const settings = settingsFromEnvironment(ServiceSettings({ allowDev: true }), environment);
    const workerSettings = workerSettingsOf(environment, infrastructure, outside, options.clusterAccess);
    const operator = operatorClusters(infrastructure);
    const { clients, policies, functions } = wireAccess(
      options,
      { api: settings, worker: workerSettings },
      log,
      infrastructure,
      cleanups,
    );
    const { api } = functions;
    await checkOutsideClusters(api, outside);
    await seedBeforeServing(options, api, operator, clients, settings.auth, extraClusters(infrastructure));
    const app = connectFront(front, functions, settings.auth, auth.identityProvider);
    // Seeded once the API listens: the demo's log links name the port it actually got.
    if (options.seed !== false) await seedDemoCatalog(api, front.apiUrl, extraClusters(infrastructure));
    const worker = await startWorker(options, functions.worker, cleanups);
    front.serve(app);
    const local = infrastructure.localClusters[0]?.cluster;
    if (!local) throw new Error('the stack runs at least one local cluster');
    return {
      apiUrl: front.apiUrl,
      forge: front.forge,
      identityProvider: auth.identityProvider,
      authSettings: settings.auth,
      gatewayUrl: local.gatewayUrl,
      clusterUrl: local.url,
      kubeconfig: local.kubeconfig(),
      resources: infrastructure.resources,
      endpoints: {
        dynamodb: infrastructure.endpoints.dynamodbEndpoint,
        sqs: infrastructure.endpoints.sqsEndpoint,
      },
      stores: api.aws.stores,
      clients,
      functionClients: functions.clients,
      policies,
      cluster: operator(localClusterName),
      clusters: api.clusters,
      localCluster: local,
      ...localClusterControl(infrastructure, options),
      ...worker,
      grantWorkerTopics: (topics) => policies.grantWorkerTopics(topics),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `localAuth`'s variables, and oidc mode's identity provider, stopped with the stack. */
async function startAuth(options: StackOptions, host: string, publicOrigin: string, cleanups: Cleanups) {
  const auth = await localAuth(
    { mode: options.authMode ?? Auth.AuthMode.Dev, ...options.auth },
    { host, publicOrigin },
  );
  const provider = auth.identityProvider;
  if (provider) cleanups.push(() => provider.stop());
  return auth;
}

/** Each function's clients; the worker's SNS client is message isolation's. */
type FunctionClients = Readonly<Record<FunctionName, AwsClients> & { worker: { sns: SNSClient } }>;

/** What each function runs on, wired apart as each is deployed: its own clients, held to its own policy. */
interface StackFunctions {
  api: Services<null>;
  worker: StackServices;
  webhook: ReturnType<typeof wireWebhook>;
  clients: FunctionClients;
}

/**
 * The deployed wiring of each function, with the stack's adapters: its clients held to its IAM
 * policy, the emulators' deadlines, the test's clock and wrappers, the worker's SNS client.
 */
function wireFunctions(
  options: StackOptions,
  settings: { api: ServiceSettings; worker: ServiceSettings },
  log: Log,
  policies: FunctionPolicies,
  operatorSns: SNSClient,
): StackFunctions {
  const held = (name: FunctionName, keep: (clients: AwsClients) => void = () => {}) => ({
    instrumentClients: (clients: AwsClients) => {
      policies.hold(name, clients.dynamodb);
      policies.hold(name, clients.sqs);
      keep(clients);
    },
  });
  const shared = {
    log,
    timeouts: emulatorTimeouts,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.wrapJobs ? { wrapJobs: options.wrapJobs } : {}),
    forgeSettings: { pollSeconds: 1, ...options.forgeSettings },
    ...(options.passwordCost ? { passwordCost: options.passwordCost } : {}),
  };
  const api = wireServices(settings.api, {
    ...shared,
    ...held(FunctionName.Api),
    cluster: clusterFromSettings,
    messaging: () => null,
  });
  const sns = createSnsClient({ ...settings.worker.aws.client, timeouts: emulatorTimeouts });
  policies.hold(FunctionName.Worker, sns);
  enforceSnsQuotas(sns, operatorSns);
  const worker = wireServices(settings.worker, {
    ...shared,
    ...held(FunctionName.Worker),
    cluster: clusterFromSettings,
    messaging: (aws) => snsSqsMessaging({ sqs: aws.clients.sqs, sns }),
  });
  let webhookClients: AwsClients | undefined;
  const webhook = wireWebhook(settings.api, {
    ...shared,
    ...held(FunctionName.Webhook, (clients) => {
      webhookClients = clients;
    }),
  });
  if (!webhookClients) throw new Error('the webhook was wired without clients');
  const wrap = options.wrapJobs;
  return {
    api,
    worker,
    // The stack's forge timings hold for the webhook too (a delivery's dispatch grace is its).
    webhook: { ...webhook, forgeSettings: api.forgeSettings, jobs: wrap ? wrap(webhook.jobs) : webhook.jobs },
    clients: { api: api.aws.clients, worker: { ...worker.aws.clients, sns }, webhook: webhookClients },
  };
}

/**
 * The operator's clients, each function's identity over the resources as the emulators name them,
 * and the functions wired on clients held to it; the clients are closed with the stack.
 */
function wireAccess(
  options: StackOptions,
  settings: { api: ServiceSettings; worker: ServiceSettings },
  log: Log,
  infrastructure: Infrastructure,
  cleanups: Cleanups,
) {
  const clients = operatorClients(infrastructure.endpoints);
  const policies = functionPolicies({
    ...infrastructure.resources,
    previewQueuePrefix: settings.worker.aws.previewQueuePrefix,
    messageTopics: settings.api.aws.manifestLimits.messageTopics,
    clusters: settings.api.kube.clusters.map((c) => c.name),
  });
  const functions = wireFunctions(options, settings, log, policies, clients.sns);
  // Cleanups run last first: the worker's poller and the schedules stop before their clients do.
  cleanups.push(async () => {
    const { api, worker, webhook } = functions.clients;
    for (const client of [clients, api, worker, webhook].flatMap((c) => Object.values(c))) client.destroy();
  });
  return { clients, policies, functions };
}

/** The emulators as the operator reaches them: held to no function's policy, to SNS's quotas all the same. */
function operatorClients(endpoints: Infrastructure['endpoints']): Stack['clients'] {
  const settings = { region, ...endpoints, timeouts: emulatorTimeouts };
  const sns = createSnsClient(settings);
  enforceSnsQuotas(sns, sns);
  return { ...createAwsClients(settings), sns };
}

/** The API and the webhook behind the listening server, and the local forge and provider told where they are. */
function connectFront(
  front: Front,
  functions: Pick<StackFunctions, 'api' | 'webhook'>,
  auth: Auth.AuthSettings,
  identityProvider: LocalIdentityProvider | null,
): ReturnType<typeof serviceApp>['app'] {
  const { app } = serviceApp(functions.api, auth, {
    // One API process: a secret of its own for the agents' confirmations.
    mcp: { secret: randomBytes(32).toString('base64url') },
    // The console links a pull request to the local forge's page of it, not to github.com.
    ...(front.forge ? { forgeWebUrl: front.forge.url } : {}),
  });
  front.serveWebhook(createWebhookApp(functions.webhook));
  identityProvider?.register(`${front.apiUrl}/auth/callback`);
  front.forge?.setWebhookUrl(`${front.apiUrl}/webhooks/forge`);
  front.mintCiTokens(functions.api);
  return app;
}

/** What runs before the services are wired: the emulators, the local clusters, the table and queues. */
interface Infrastructure {
  endpoints: { dynamodbEndpoint: string; sqsEndpoint: string };
  /** `local` first; `restartCluster` replaces an entry. */
  localClusters: LocalClusterRun[];
  resources: ProvisionedResources;
}

async function startInfrastructure(
  options: StackOptions,
  host: string,
  cleanups: Cleanups,
): Promise<Infrastructure> {
  const [endpoints, localClusters] = await Promise.all([
    options.emulators ?? startEmulators(options.stateDir, cleanups),
    startLocalClusters(
      {
        host,
        count: options.clusters ?? 1,
        gatewayPort: options.gatewayPort ?? 0,
        podReadyDelayMs: options.podReadyDelayMs ?? 1000,
        stateDir: options.stateDir,
      },
      cleanups,
    ),
  ]);
  const resources = await provisionOn(endpoints, options.resourcePrefix);
  return { endpoints, localClusters, resources };
}

/** The names of the stack's local clusters after `local`: each has a demo baseline of its own. */
const extraClusters = (infrastructure: Infrastructure) =>
  infrastructure.localClusters.slice(1).map((r) => r.name);

/**
 * The worker's settings: the API's with the worker's kubeconfigs, so on the stack's own clusters it
 * acts as its own identity (and the API as its), as on EKS.
 */
function workerSettingsOf(
  environment: Record<string, string>,
  infrastructure: Infrastructure,
  outside: readonly NamedOutsideCluster[],
  access: StackOptions['clusterAccess'],
): ServiceSettings {
  return settingsFromEnvironment(ServiceSettings({ allowDev: true }), {
    ...environment,
    ...clusterVariables(infrastructure.localClusters, outside, 'worker', access),
  });
}

/** The operator's client of each of the stack's own clusters (an admin): the demo's seeding, tests. */
function operatorClusters(infrastructure: Infrastructure): (name: string) => Cluster.ClusterPort {
  const ports = new Map(
    infrastructure.localClusters.map((run) => [
      run.name,
      clusterFromSettings({ kubeconfig: run.kubeconfigPath }),
    ]),
  );
  return (name) => {
    const port = ports.get(name);
    if (!port) throw new Error(`the stack has no local cluster "${name}"`);
    return port;
  };
}

/** A test's hold on the stack's local clusters: each as it runs now, and a restart. */
function localClusterControl(
  infrastructure: Infrastructure,
  options: StackOptions,
): Pick<Stack, 'localClusterOf' | 'restartCluster'> {
  const runs = infrastructure.localClusters;
  const indexOf = (name: string) => {
    const index = runs.findIndex((run) => run.name === name);
    if (index === -1) throw new Error(`the stack has no local cluster "${name}"`);
    return index;
  };
  return {
    localClusterOf: (name) => runs[indexOf(name)] as LocalClusterRun,
    async restartCluster(name) {
      const index = indexOf(name);
      runs[index] = await restartLocalCluster(
        runs[index] as LocalClusterRun,
        options.podReadyDelayMs ?? 1000,
      );
    },
  };
}

/** The table and queues, created with clients of their own: the services build theirs from the settings. */
async function provisionOn(
  endpoints: { dynamodbEndpoint: string; sqsEndpoint: string },
  prefix: string | undefined,
): Promise<ProvisionedResources> {
  const clients = createAwsClients({ region, ...endpoints, timeouts: emulatorTimeouts });
  try {
    return await provision(clients, prefix);
  } finally {
    clients.dynamodb.destroy();
    clients.sqs.destroy();
  }
}

/**
 * The stack's settings as a deployed API's environment holds them, so they go through the same
 * parse and the same wiring: the emulators' endpoints, the local cluster's kubeconfig, the local
 * forge's app, the auth mode's variables.
 */
function stackEnvironment(
  options: StackOptions,
  infrastructure: Infrastructure,
  outside: readonly NamedOutsideCluster[],
  forge: LocalForge | null,
  auth: Record<string, string>,
): Record<string, string> {
  const { endpoints, resources, localClusters } = infrastructure;
  const [local] = localClusters;
  if (!local) throw new Error('the stack runs at least one local cluster');
  const namespaces = options.namespaces ?? Catalog.defaultNamespacePolicy;
  return {
    AWS_REGION: region,
    DYNAMODB_ENDPOINT: endpoints.dynamodbEndpoint,
    SQS_ENDPOINT: endpoints.sqsEndpoint,
    TABLE_NAME: resources.tableName,
    JOB_QUEUE_URL: resources.jobQueueUrl,
    DEAD_LETTER_QUEUE_URL: resources.deadLetterQueueUrl,
    PREVIEW_URL_TEMPLATE: gatewayTemplate(local.cluster),
    CURSOR_KEY: options.cursorKey ?? localCursorKey,
    MESSAGE_TOPICS: JSON.stringify(options.messageTopics ?? demoMessageTopics),
    ...(namespaces.allowed ? { PREVIEW_NAMESPACES: namespaces.allowed.join(',') } : {}),
    SERVICE_NAMESPACE: namespaces.serviceNamespace,
    // The template leaves the domain to the baseline: the demo's is the only one served here.
    PREVIEW_DOMAINS: (options.previewDomains ?? [localPreviewDomain]).join(','),
    // Said explicitly: previews here answer on 127.0.0.1, which a deployed routing check never reaches.
    PREVIEW_PRIVATE_ADDRESSES: options.previewPrivateAddresses === false ? 'refuse' : 'allow',
    ...(options.build ? { SVC_RELEASE: options.build.release, SVC_COMMIT: options.build.commit } : {}),
    ...clusterVariables(localClusters, outside, 'api', options.clusterAccess),
    ...(forge ? forgeEnvironment(forge, options.forge || {}) : {}),
    ...auth,
  };
}

/** The app the local forge installed, as a deployed function is given it (its secrets by SST). */
function forgeEnvironment(forge: LocalForge, options: LocalForgeOptions): Record<string, string> {
  return {
    FORGE_APP_ID: String(forge.appId),
    FORGE_PRIVATE_KEY: forge.privateKey,
    FORGE_WEBHOOK_SECRET: forge.webhookSecret,
    FORGE_API_URL: forge.url,
    FORGE_WRITE_INTERVAL_MS: String(options.writeIntervalMs ?? 250),
  };
}

/** What the local clusters' gateways serve previews on (packages/local-cluster's default). */
const localPreviewDomain = 'preview.localhost';

type StackServices = Services<Messaging.MessagingPort>;

/** The API's server and the local forge, up before the services: the API's origin is their settings'. */
interface Front {
  apiUrl: string;
  forge: LocalForge | null;
  /** Locally the webhook is mounted on the API's server; on AWS it is a function of its own. */
  serveWebhook(webhook: { fetch(request: Request): Response | Promise<Response> }): void;
  /** Outside dev mode the stand-in CI publishes with a machine token of its own, as CI does. */
  mintCiTokens(services: Pick<Services<unknown>, 'tokens' | 'clock'>): void;
  serve(app: ReturnType<typeof serviceApp>['app']): void;
}

async function startFront(options: StackOptions, host: string, log: Log, cleanups: Cleanups): Promise<Front> {
  let app: ReturnType<typeof serviceApp>['app'] | undefined;
  let webhook: Parameters<Front['serveWebhook']>[0] | undefined;
  let ciToken: (() => Promise<string | null>) | undefined;
  let apiUrl = '';
  const forgeOptions = options.forge === false ? null : (options.forge ?? {});
  const forge =
    forgeOptions &&
    (await startStackForge({
      stateDir: options.stateDir,
      apiUrl: () => apiUrl,
      token: () => ciToken?.() ?? Promise.resolve(null),
      forge: forgeOptions,
      log,
    }));
  if (forge) cleanups.push(() => forge.stop());
  const starting = () => new Response('starting', { status: 503 });
  const server = await listenNode(
    (request, env) =>
      new URL(request.url).pathname.startsWith('/webhooks/')
        ? (webhook?.fetch(request) ?? starting())
        : (app?.fetch(request, env) ?? starting()),
    host,
    options.port ?? 8081,
  );
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const listening = server.address();
  apiUrl = `http://${host}:${typeof listening === 'object' && listening ? listening.port : options.port}`;
  const authMode = options.authMode ?? Auth.AuthMode.Dev;
  return {
    apiUrl,
    forge,
    serveWebhook: (served) => {
      webhook = served;
    },
    mintCiTokens: (services) => {
      if (authMode === Auth.AuthMode.Dev || authMode === Auth.AuthMode.Anonymous) return;
      let minted: Promise<string> | undefined;
      // A publisher grant on the demo project, nothing else.
      ciToken = () =>
        (minted ??= Auth.mintToken(services.tokens, {
          name: 'local-ci',
          grants: [{ role: 'publisher', project: 'demo', repository: null }],
          createdBy: 'npm start',
          now: services.clock.now(),
          expiresAt: null,
        }).then((issued) => issued.token));
    },
    serve: (served) => {
      app = served;
    },
  };
}

/** The demo's queues, baselines (one on each local cluster) and preview policy, and password mode's people. */
async function seedBeforeServing(
  options: StackOptions,
  services: Services<unknown>,
  operator: (name: string) => Cluster.ClusterPort,
  clients: Stack['clients'],
  auth: Auth.AuthSettings,
  extras: readonly string[],
): Promise<void> {
  if (options.seed !== false) {
    const messaging = await setUpDemoMessaging(clients);
    const manifest = demoManifest(undefined, extras);
    await Promise.all([
      deployDemoBaseline(operator(localClusterName), messaging),
      ...extras.map((name) =>
        deployBaselineOf(operator(name), manifest, 'demo', {}, undefined, demoBaselineOn(name)),
      ),
      services.forge ? seedDemoPolicy(services.forgeStore) : null,
    ]);
  }
  if (auth.mode === Auth.AuthMode.Password) {
    await seedUsers(services, options.auth?.users ?? localUsers, services.clock.now());
  }
}

/** The worker on the job queue and the schedules on timers, over the worker's services. */
async function startWorker(
  options: StackOptions,
  services: StackServices,
  cleanups: Cleanups,
): Promise<Pick<Stack, 'workerDeps' | 'workerCounts' | 'handle' | 'scheduler'>> {
  const metrics = countingMetrics();
  const workerDeps: WorkerDeps = {
    ...services,
    compositions: options.wrapWorkerStore
      ? options.wrapWorkerStore(services.compositions)
      : services.compositions,
    probe: httpProbe({ privateAddresses: services.previewPrivateAddresses }),
    settings: {
      ...defaultWorkerSettings,
      queuePrefix: services.previewQueuePrefix,
      ...options.workerSettings,
    },
    metrics,
  };
  const handle = (body: string, receiveCount = 1) => handleJob(workerDeps, body, receiveCount);
  if (options.worker !== false) {
    const poller: Poller = startPoller({
      sqs: services.aws.clients.sqs,
      queueUrl: services.aws.names.jobQueueUrl,
      handle,
      log: services.log,
      ...(options.retryBaseSeconds === undefined ? {} : { retryBaseSeconds: options.retryBaseSeconds }),
    });
    cleanups.push(() => poller.stop());
  }
  const redispatch = followDueOperations(services, () => scheduler);
  const scheduler = startScheduler(
    Resources.schedules,
    { ...sweeps(services), [Resources.ScheduleName.RedispatchSweep]: redispatch.sweep },
    { log: services.log },
  );
  cleanups.push(() => scheduler.stop());
  // Cleanups run last first: no follow-up sweep starts once the stack is stopping.
  cleanups.push(async () => redispatch.stop());
  await scheduler.run(Resources.ScheduleName.RedispatchSweep);
  return { workerDeps, workerCounts: () => metrics.counts(), handle, scheduler };
}

async function startEmulators(
  stateDir: string | undefined,
  cleanups: (() => Promise<void>)[],
): Promise<{ dynamodbEndpoint: string; sqsEndpoint: string }> {
  const dynamoPath = stateDir ? join(stateDir, 'dynamodb') : undefined;
  const sqsPath = stateDir ? join(stateDir, 'fauxqs') : undefined;
  for (const dir of [dynamoPath, sqsPath]) if (dir) mkdirSync(dir, { recursive: true });
  const [dynamodb, sqs] = await Promise.allSettled([
    startDynamoDbLocal(dynamoPath ? { dbPath: dynamoPath } : {}),
    startSqsEmulator(sqsPath ? { dataDir: sqsPath } : {}),
  ]);
  for (const started of [dynamodb, sqs]) {
    if (started.status === 'fulfilled') cleanups.push(() => started.value.stop());
  }
  if (dynamodb.status === 'rejected') throw dynamodb.reason;
  if (sqs.status === 'rejected') throw sqs.reason;
  return { dynamodbEndpoint: dynamodb.value.endpoint, sqsEndpoint: sqs.value.endpoint };
}

const redispatchPeriodMs =
  (Resources.schedules.find((s) => s.name === Resources.ScheduleName.RedispatchSweep)?.periodSeconds ?? 60) *
  1000;

/**
 * The redispatch sweep, run again locally as soon as the next unfinished operation falls due rather
 * than at its next minute (EventBridge's finest period, which the cloud keeps): a chain cut off by
 * a crash, this run's or the previous one's, is taken over a second after its lease lapses.
 */
function followDueOperations(
  deps: Pick<WorkerDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  scheduler: () => Scheduler,
): { sweep: () => Promise<number>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  return {
    async sweep() {
      const sent = await Compositions.redispatchOverdue(deps);
      const now = deps.clock.now().getTime();
      const next = await Compositions.nextDueBefore(deps, new Date(now + redispatchPeriodMs));
      const at = next ? Math.max(next.getTime(), now) + 1000 : null;
      if (at !== null && at < timerAt) {
        clearTimeout(timer);
        timerAt = at;
        timer = setTimeout(() => {
          timerAt = Number.POSITIVE_INFINITY;
          void scheduler().run(Resources.ScheduleName.RedispatchSweep);
        }, at - now);
        timer.unref();
      }
      return sent;
    },
    stop: () => clearTimeout(timer),
  };
}
