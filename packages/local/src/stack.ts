import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, listenNode } from '@svc/api';
import { awsStores, createAwsClients, dynamodbCheck, sqsCheck } from '@svc/aws';
import { AuthMode, type Clock, type JobQueue, Resources, redispatchOverdue, systemClock } from '@svc/core';
import { type Poller, type Scheduler, startPoller, startScheduler } from '@svc/worker';
import { seedDemoCatalog } from './demo.ts';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.ts';
import { type SqsEmulator, startSqsEmulator } from './fauxqs.ts';
import { type ProvisionedResources, provision } from './provision.ts';

export interface StackOptions {
  host?: string;
  /** API port; 0 picks a free one. */
  port?: number;
  /** Keep emulator state here across restarts; absent = in memory (tests). */
  stateDir?: string;
  /** Reuse running emulators (the test harness shares one of each per run). */
  emulators?: { dynamodbEndpoint: string; sqsEndpoint: string };
  /** Prefix for the table and queue names, isolating test files on shared emulators. */
  resourcePrefix?: string;
  log?: (entry: Record<string, unknown>) => void;
  /** Time for the API, worker and sweeps; tests move it instead of sleeping. */
  clock?: Clock;
  /** Port of the preview gateway, for preview URLs (default 8082). */
  gatewayPort?: number;
  /** Run the queue poller (default true); tests of the queue itself turn it off. */
  worker?: boolean;
  /** Seed the demo catalog (default true). */
  seed?: boolean;
  /** Wrap the job queue, e.g. to make sends fail in a test. */
  wrapJobs?: (jobs: JobQueue) => JobQueue;
  /** Auth: `dev` (default) or bearer tokens. */
  authMode?: typeof AuthMode.Dev | typeof AuthMode.Token;
}

export interface Stack {
  readonly apiUrl: string;
  readonly resources: ProvisionedResources;
  readonly endpoints: { dynamodb: string; sqs: string };
  readonly scheduler: Scheduler;
  readonly stores: ReturnType<typeof awsStores>;
  readonly clients: ReturnType<typeof createAwsClients>;
  stop(): Promise<void>;
}

const region = 'us-east-1';

/** The whole service on one machine: emulators (unless given), resources, API, worker and schedules. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? (() => {});
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const endpoints = options.emulators ?? (await startEmulators(options.stateDir, cleanups));
    const clients = createAwsClients({
      region,
      dynamodbEndpoint: endpoints.dynamodbEndpoint,
      sqsEndpoint: endpoints.sqsEndpoint,
    });
    const resources = await provision(clients, options.resourcePrefix);

    const clock = options.clock ?? systemClock;
    const stores = awsStores(clients, resources, clock);
    const jobs = options.wrapJobs ? options.wrapJobs(stores.jobs) : stores.jobs;
    const gatewayPort = options.gatewayPort ?? 8082;
    const services = {
      ...stores,
      jobs,
      clock,
      log,
      previewUrl: (id: string, domain: string) => `http://${id}.${domain}:${gatewayPort}/`,
    };
    if (options.seed !== false) await seedDemoCatalog(services);

    const authMode = options.authMode ?? AuthMode.Dev;
    const { app } = createApp({
      ...services,
      auth:
        authMode === AuthMode.Dev
          ? { mode: AuthMode.Dev }
          : { mode: AuthMode.Token, verifyToken: (token) => stores.tokens.verify(token, clock.now()) },
      health: [
        dynamodbCheck(clients.dynamodb, resources.tableName),
        sqsCheck(clients.sqs, resources.jobQueueUrl),
      ],
    });
    const server = await listenNode(app.fetch, options.host ?? '127.0.0.1', options.port ?? 8081);
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));

    if (options.worker !== false) {
      const poller: Poller = startPoller({
        sqs: clients.sqs,
        queueUrl: resources.jobQueueUrl,
        handle: async (body) => log({ level: 'debug', msg: 'job received', body }),
        log,
      });
      cleanups.push(() => poller.stop());
    }

    const scheduler = startScheduler(
      Resources.schedules,
      {
        'expiry-sweep': async () => {},
        'idempotency-sweep': () => stores.idempotency.sweep(clock.now(), 500),
        'redispatch-sweep': () => redispatchOverdue(services),
      },
      { log },
    );
    cleanups.push(() => scheduler.stop());
    await scheduler.run(Resources.ScheduleName.RedispatchSweep);

    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : options.port;
    return {
      apiUrl: `http://${options.host ?? '127.0.0.1'}:${port}`,
      resources,
      endpoints: { dynamodb: endpoints.dynamodbEndpoint, sqs: endpoints.sqsEndpoint },
      scheduler,
      stores,
      clients,
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
    if (started.status === 'fulfilled')
      cleanups.push(() => (started.value as DynamoDbLocal | SqsEmulator).stop());
  }
  if (dynamodb.status === 'rejected') throw dynamodb.reason;
  if (sqs.status === 'rejected') throw sqs.reason;
  return { dynamodbEndpoint: dynamodb.value.endpoint, sqsEndpoint: sqs.value.endpoint };
}
