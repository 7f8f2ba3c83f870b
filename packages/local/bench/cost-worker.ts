/**
 * The worker of the cost benchmark, in a process of its own so that its CPU time is its own: the
 * same assembly as the local stack's worker (packages/local/src/stack.ts), with metered clients.
 * Started by cost.ts with its settings in BENCH_WORKER (JSON); answers `report` and `reset`
 * messages over IPC.
 */
import { awsStores, createAwsClients, createSnsClient, snsSqsMessaging } from '@svc/aws';
import { Cluster, Forge, systemClock } from '@svc/core';
import { fixedKubeConfig, kubeCluster, kubeConfigFromString } from '@svc/kube';
import {
  countingMetrics,
  defaultWorkerSettings,
  handleJob,
  httpProbe,
  startPoller,
  type WorkerDeps,
} from '@svc/worker';
import { emulatorTimeouts, localCursorKey } from '../src/stack.ts';
import {
  type ClusterMeter,
  type DynamoMeter,
  meterCluster,
  meterDynamoDb,
  meterQueue,
  type QueueMeter,
  type Snapshot,
  snapshot,
} from './meters.ts';

export interface WorkerBenchSettings {
  region: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  tableName: string;
  jobQueueUrl: string;
  kubeconfig: string;
}

export interface Calibration {
  dynamodbGetMs: number;
  kubeGetMs: number;
}

export interface WorkerReport {
  cpuMicros: { user: number; system: number };
  /** Wall time of each handled message (Lambda bills per invocation duration). */
  invocations: { count: number; totalMs: number; failed: number };
  logs: { entries: number; bytes: number };
  dynamodb: Snapshot<DynamoMeter>;
  sqs: Snapshot<QueueMeter>;
  sns: Snapshot<QueueMeter>;
  cluster: Snapshot<ClusterMeter>;
  /** After a full collection when the process runs with --expose-gc (bench:scale), else as it stands. */
  memory: { heapUsed: number; rss: number };
}

const settings = JSON.parse(process.env.BENCH_WORKER ?? '') as WorkerBenchSettings;
const aws = {
  region: settings.region,
  dynamodbEndpoint: settings.dynamodbEndpoint,
  sqsEndpoint: settings.sqsEndpoint,
  // The local stack's deadlines: the poller's 10 s long poll must outlast the request deadline, or
  // a message that arrives late in a poll goes to a request already given up and stays hidden for
  // its visibility timeout.
  timeouts: emulatorTimeouts,
};
const clients = { ...createAwsClients(aws), sns: createSnsClient(aws) };
const dynamodb = meterDynamoDb(clients.dynamodb);
const sqs = meterQueue(clients.sqs, 'benchSqsMeter');
const sns = meterQueue(clients.sns, 'benchSnsMeter');
const { cluster, meter: clusterMeter } = meterCluster(
  kubeCluster(fixedKubeConfig(kubeConfigFromString(settings.kubeconfig))),
);
const logs = { entries: 0, bytes: 0 };
const invocations = { count: 0, totalMs: 0, failed: 0 };
const stores = awsStores(clients, settings, systemClock, localCursorKey);
const deps: WorkerDeps = {
  ...stores,
  clock: systemClock,
  clusters: Cluster.clusterRegistry(new Map([['local', cluster]])),
  messaging: snsSqsMessaging(clients),
  // The bench's previews answer on this machine's loopback gateway.
  probe: httpProbe({ privateAddresses: true }),
  settings: defaultWorkerSettings,
  previewUrl: (id, domain) => `http://${id}.${domain}/`,
  forge: null,
  forgeSettings: Forge.defaultForgeSettings,
  metrics: countingMetrics(),
  log: (entry) => {
    logs.entries++;
    logs.bytes += Buffer.byteLength(JSON.stringify(entry)) + 1;
  },
};

const poller = startPoller({
  sqs: clients.sqs,
  queueUrl: settings.jobQueueUrl,
  log: deps.log,
  async handle(body, receiveCount) {
    const started = performance.now();
    try {
      await handleJob(deps, body, receiveCount);
    } catch (error) {
      invocations.failed++;
      throw error;
    } finally {
      invocations.count++;
      invocations.totalMs += performance.now() - started;
    }
  },
});

/** CPU per request of the clients alone, each request repeated `rounds` times: the floor the counts imply. */
async function calibrate(compositionId: string, rounds = 200): Promise<Calibration> {
  const composition = await deps.compositions.get(compositionId);
  if (!composition) throw new Error(`no composition ${compositionId} to calibrate with`);
  const measure = async (request: () => Promise<unknown>) => {
    await request();
    const base = process.cpuUsage();
    for (let i = 0; i < rounds; i++) await request();
    const used = process.cpuUsage(base);
    return (used.user + used.system) / 1000 / rounds;
  };
  return {
    dynamodbGetMs: await measure(() => deps.compositions.get(compositionId)),
    kubeGetMs: await measure(() => cluster.getService(composition.namespace, 'service-a')),
  };
}

let cpuBase = process.cpuUsage();
process.on('message', async (message: { type: 'report' | 'reset' | 'stop' | 'calibrate'; id?: string }) => {
  if (message.type === 'calibrate') {
    process.send?.({ type: 'calibrate', calibration: await calibrate(message.id as string) });
  } else if (message.type === 'reset') {
    for (const meter of [dynamodb, sqs, sns, clusterMeter]) meter.reset();
    Object.assign(logs, { entries: 0, bytes: 0 });
    Object.assign(invocations, { count: 0, totalMs: 0, failed: 0 });
    cpuBase = process.cpuUsage();
    process.send?.({ type: 'reset' });
  } else if (message.type === 'report') {
    (globalThis as { gc?: () => void }).gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    const report: WorkerReport = {
      cpuMicros: process.cpuUsage(cpuBase),
      invocations,
      logs,
      dynamodb: snapshot(dynamodb),
      sqs: snapshot(sqs),
      sns: snapshot(sns),
      cluster: snapshot(clusterMeter),
      memory: { heapUsed, rss },
    };
    process.send?.({ type: 'report', report });
  } else {
    await poller.stop();
    process.exit(0);
  }
});
process.send?.({ type: 'ready' });
