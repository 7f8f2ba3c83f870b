/**
 * Each function of the deploy wired apart, as each is deployed: its own AWS clients, held to its
 * own IAM policy (packages/local-iam over infra's policies), through the wiring its entry uses.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import { type AwsClients, createAwsClients, createSnsClient, snsSqsMessaging } from '@svc/aws';
import type { Log } from '@svc/core';
import { clusterFromSettings } from '@svc/kube';
import { type ServiceSettings, type Services, wireServices, wireWebhook } from '@svc/wiring';
import { type WorkerServices, wireWorker } from '@svc/wiring/worker';
import { countingMetrics } from '@svc/worker';
import { FunctionName, type FunctionPolicies, functionPolicies } from '../function-policies.ts';
import { enforceSnsQuotas } from '../sns-quotas.ts';
import type { Infrastructure } from './infrastructure.ts';
import { type Cleanups, emulatorTimeouts, region, type StackOptions } from './options.ts';

/** Each function's clients; the worker's SNS client is message isolation's. */
export type FunctionClients = Readonly<Record<FunctionName, AwsClients> & { worker: { sns: SNSClient } }>;

/** What each function runs on, wired apart as each is deployed: its own clients, held to its own policy. */
export interface StackFunctions {
  api: Services<null>;
  worker: WorkerServices;
  webhook: ReturnType<typeof wireWebhook>;
  clients: FunctionClients;
  /** What the worker counted (messages for unknown operations, lost chain writes). */
  workerCounts(): Readonly<Record<string, number>>;
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
  // Kept in memory: tests read what the worker counted.
  const workerMetrics = countingMetrics();
  const worker = wireWorker(settings.worker, {
    ...shared,
    ...held(FunctionName.Worker),
    cluster: clusterFromSettings,
    messaging: (aws) => snsSqsMessaging({ sqs: aws.clients.sqs, sns }),
    workerMetrics,
    ...(options.workerSettings ? { timings: options.workerSettings } : {}),
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
    workerCounts: () => workerMetrics.counts(),
  };
}

/**
 * The operator's clients, each function's identity over the resources as the emulators name them,
 * and the functions wired on clients held to it; the clients are closed with the stack.
 */
export function wireAccess(
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

/**
 * The emulators as the operator reaches them, held to no function's policy: what tests publish,
 * drain, seed and look with. (SNS's quotas hold all the same.)
 */
export type OperatorClients = AwsClients & { sns: SNSClient };

function operatorClients(endpoints: Infrastructure['endpoints']): OperatorClients {
  const settings = { region, ...endpoints, timeouts: emulatorTimeouts };
  const sns = createSnsClient(settings);
  enforceSnsQuotas(sns, sns);
  return { ...createAwsClients(settings), sns };
}
