import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, createWebhookApp, listenNode, openIdProvider } from '@svc/api';
import {
  type AwsClients,
  awsStores,
  createAwsClients,
  createSnsClient,
  dynamodbCheck,
  snsSqsMessaging,
  sqsCheck,
  sqsDeadLetterQueue,
} from '@svc/aws';
import {
  Auth,
  Catalog,
  type Clock,
  type Cluster,
  Compositions,
  Forge,
  type Log,
  Resources,
  silentLog,
  systemClock,
} from '@svc/core';
import { forgeWiring } from '@svc/github';
import { fixedKubeConfig, kubeCluster, kubeConfigFromString } from '@svc/kube';
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
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
import { deployDemoBaseline, seedDemoCatalog, setUpDemoMessaging } from './demo.ts';
import { startDynamoDbLocal } from './dynamodb-local.ts';
import { startSqsEmulator } from './fauxqs.ts';
import { type LocalForgeOptions, seedDemoPolicy, startStackForge } from './forge.ts';
import type { LocalIdentityProvider } from './identity-provider.ts';
import { enforceTopicGrants } from './messaging-grants.ts';
import { type ProvisionedResources, provision } from './provision.ts';

export interface StackOptions {
  host?: string;
  /** Where baselines may be (default: anywhere but the cluster's own namespaces and svc-system). */
  namespaces?: Catalog.NamespacePolicy;
  /** API port; 0 picks a free one. */
  port?: number;
  /** Preview gateway port (default 8082); 0 picks a free one. */
  gatewayPort?: number;
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
   * The stage's `messageTopics`: what the catalog may name and the worker may subscribe to
   * (default: the demo's topic). The worker is refused the others the way IAM refuses them.
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
  readonly gatewayUrl: string;
  readonly clusterUrl: string;
  readonly kubeconfig: string;
  readonly resources: ProvisionedResources;
  readonly endpoints: { dynamodb: string; sqs: string };
  readonly scheduler: Scheduler;
  readonly stores: ReturnType<typeof awsStores>;
  readonly clients: AwsClients & { sns: ReturnType<typeof createSnsClient> };
  readonly cluster: Cluster.ClusterPort;
  readonly localCluster: LocalCluster;
  /** The local forge, unless turned off. */
  readonly forge: LocalForge | null;
  /** What the worker runs with, for driving its Lambda handler in tests. */
  readonly workerDeps: WorkerDeps;
  /** What the worker counted (messages for unknown operations, lost chain writes). */
  workerCounts(): Readonly<Record<string, number>>;
  /** Runs one job message the way the poller does; tests use it to deliver a message twice. */
  handle(body: string, receiveCount?: number): Promise<void>;
  /**
   * What the worker's simulated IAM policy grants from now on, leaving the catalog's view alone:
   * a stage redeployed with other `messageTopics` after the catalog was applied.
   */
  grantWorkerTopics(topics: readonly string[]): void;
  stop(): Promise<void>;
}

const region = 'us-east-1';

/** The whole service on one machine: emulators (unless given), local cluster, resources, API, worker and schedules. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? silentLog;
  const host = options.host ?? '127.0.0.1';
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const [endpoints, localCluster] = await Promise.all([
      options.emulators ?? startEmulators(options.stateDir, cleanups),
      startLocalCluster({
        host,
        port: 0,
        gatewayPort: options.gatewayPort ?? 8082,
        podReadyDelayMs: options.podReadyDelayMs ?? 1000,
        ...(options.stateDir ? { dataDir: join(options.stateDir, 'cluster') } : {}),
      }),
    ]);
    cleanups.push(() => localCluster.stop());
    const kubeconfig = localCluster.kubeconfig();
    if (options.stateDir) {
      const path = join(options.stateDir, 'kubeconfig');
      writeFileSync(path, kubeconfig, { mode: 0o600 });
      chmodSync(path, 0o600);
    }
    const cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(kubeconfig)));
    const gatewayPort = Number(new URL(localCluster.gatewayUrl).port);

    // Emulators on a busy laptop (or a test run on two cores) answer slower than AWS: longer deadlines.
    const aws = {
      region,
      dynamodbEndpoint: endpoints.dynamodbEndpoint,
      sqsEndpoint: endpoints.sqsEndpoint,
      timeouts: { connectionMs: 5000, requestMs: 20_000 },
    };
    const clients = { ...createAwsClients(aws), sns: createSnsClient(aws) };
    const messageTopics = options.messageTopics ?? demoMessageTopics;
    let workerTopics = messageTopics;
    const workerSns = createSnsClient(aws);
    enforceTopicGrants(workerSns, () => workerTopics);
    const resources = await provision(clients, options.resourcePrefix);
    const clock = options.clock ?? systemClock;
    const stores = awsStores(clients, resources, clock, options.cursorKey ?? localCursorKey);
    const jobs = options.wrapJobs ? options.wrapJobs(stores.jobs) : stores.jobs;
    const authMode = options.authMode ?? Auth.AuthMode.Dev;
    let apiUrl = '';
    let ciToken: Promise<string> | undefined;
    const forgeOptions = options.forge === false ? null : (options.forge ?? {});
    const localForge =
      forgeOptions === null
        ? null
        : await startStackForge({
            stateDir: options.stateDir,
            apiUrl: () => apiUrl,
            // Outside dev mode the stand-in CI publishes with a machine token of its own, as CI does:
            // a publisher grant on the demo project, nothing else.
            token: async () => {
              if (authMode === Auth.AuthMode.Dev || authMode === Auth.AuthMode.Anonymous) return null;
              ciToken ??= Auth.mintToken(stores.tokens, {
                name: 'local-ci',
                grants: [{ role: 'publisher', project: 'demo', repository: null }],
                createdBy: 'npm start',
                now: clock.now(),
                expiresAt: null,
              }).then((issued) => issued.token);
              return ciToken;
            },
            forge: forgeOptions,
            log,
          });
    if (localForge) cleanups.push(() => localForge.stop());
    const forge = forgeWiring(
      localForge
        ? {
            appId: String(localForge.appId),
            privateKey: localForge.privateKey,
            webhookSecret: localForge.webhookSecret,
            apiUrl: localForge.url,
            writeIntervalMs: forgeOptions?.writeIntervalMs ?? 250,
          }
        : null,
    );
    const services = {
      ...stores,
      jobs,
      clock,
      log,
      cluster,
      previewUrl: (id: string, domain: string) => `http://${id}.${domain}:${gatewayPort}/`,
      forge: forge.forge,
      forgeSettings: { ...Forge.defaultForgeSettings, pollSeconds: 1, ...options.forgeSettings },
      manifestLimits: { messageTopics, namespaces: options.namespaces ?? Catalog.defaultNamespacePolicy },
    };
    if (options.seed !== false) {
      const messaging = await setUpDemoMessaging(clients);
      await Promise.all([
        deployDemoBaseline(cluster, messaging),
        localForge ? seedDemoPolicy(stores.forgeStore) : null,
      ]);
    }

    // The API listens first: every mode but dev needs the origin it answers on (its public origin).
    // It answers 503 until the stack is whole (catalog seeded, worker running), so nothing reaches
    // a half-started stack.
    let serving: ReturnType<typeof createApp>['app'] | undefined;
    // Locally the webhook is mounted on the API's server; on AWS it is a function of its own.
    const webhook = createWebhookApp({ ...services, verify: forge.verify });
    const server = await listenNode(
      (request, env) =>
        new URL(request.url).pathname.startsWith('/webhooks/')
          ? webhook.fetch(request)
          : (serving?.fetch(request, env) ?? new Response('starting', { status: 503 })),
      host,
      options.port ?? 8081,
    );
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const listening = server.address();
    apiUrl = `http://${host}:${typeof listening === 'object' && listening ? listening.port : options.port}`;

    const auth = await localAuth(
      { mode: options.authMode ?? Auth.AuthMode.Dev, ...options.auth },
      { host, publicOrigin: apiUrl },
    );
    if (auth.identityProvider) {
      const provider = auth.identityProvider;
      cleanups.push(() => provider.stop());
    }
    if (auth.settings.mode === Auth.AuthMode.Password) {
      await seedUsers(stores.users, options.auth?.users ?? localUsers, clock.now());
    }
    const { app } = createApp({
      ...services,
      auth: auth.settings,
      ...(auth.settings.mode === Auth.AuthMode.Oidc
        ? { identityProvider: openIdProvider(auth.settings) }
        : {}),
      health: [
        dynamodbCheck(clients.dynamodb, resources.tableName),
        sqsCheck(clients.sqs, resources.jobQueueUrl),
        cluster.health,
      ],
      forgeConfiguration: forge.configuration,
      // The console links a pull request to the local forge's page of it, not to github.com.
      ...(localForge ? { forgeWebUrl: localForge.url } : {}),
      ...(options.build ? { build: options.build } : {}),
      deadLetters: sqsDeadLetterQueue(clients.sqs, resources.deadLetterQueueUrl),
      // One API process: a secret of its own for the agents' confirmations.
      mcp: { secret: randomBytes(32).toString('base64url') },
    });
    auth.identityProvider?.register(`${apiUrl}/auth/callback`);
    localForge?.setWebhookUrl(`${apiUrl}/webhooks/forge`);
    // Seeded once the API listens: the demo's log links name the port it actually got.
    if (options.seed !== false) await seedDemoCatalog(services, apiUrl);

    const metrics = countingMetrics();
    const workerDeps: WorkerDeps = {
      ...services,
      compositions: options.wrapWorkerStore
        ? options.wrapWorkerStore(services.compositions)
        : services.compositions,
      messaging: snsSqsMessaging({ sqs: clients.sqs, sns: workerSns }),
      probe: httpProbe(),
      settings: { ...defaultWorkerSettings, ...options.workerSettings },
      metrics,
    };
    const handle = (body: string, receiveCount = 1) => handleJob(workerDeps, body, receiveCount);
    if (options.worker !== false) {
      const poller: Poller = startPoller({
        sqs: clients.sqs,
        queueUrl: resources.jobQueueUrl,
        handle,
        log,
        ...(options.retryBaseSeconds === undefined ? {} : { retryBaseSeconds: options.retryBaseSeconds }),
      });
      cleanups.push(() => poller.stop());
    }

    const redispatch = followDueOperations(services, () => scheduler);
    const scheduler = startScheduler(
      Resources.schedules,
      { ...sweeps(services), [Resources.ScheduleName.RedispatchSweep]: redispatch.sweep },
      { log },
    );
    cleanups.push(() => scheduler.stop());
    // Cleanups run last first: no follow-up sweep starts once the stack is stopping.
    cleanups.push(async () => redispatch.stop());
    await scheduler.run(Resources.ScheduleName.RedispatchSweep);
    serving = app;

    return {
      apiUrl,
      forge: localForge,
      identityProvider: auth.identityProvider,
      authSettings: auth.settings,
      gatewayUrl: localCluster.gatewayUrl,
      clusterUrl: localCluster.url,
      kubeconfig,
      resources,
      endpoints: { dynamodb: endpoints.dynamodbEndpoint, sqs: endpoints.sqsEndpoint },
      scheduler,
      stores,
      clients,
      cluster,
      localCluster,
      workerDeps,
      workerCounts: () => metrics.counts(),
      handle,
      grantWorkerTopics(topics) {
        workerTopics = topics;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
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
