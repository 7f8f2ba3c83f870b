/**
 * The whole service on one machine, started in order: the emulators and the local clusters, the
 * front (the API's server, the identity provider), the forge, the settings as a deploy gives them,
 * each function wired and held to its IAM policy, the seed, the worker. Each step is a file of
 * `stack/`; this one only orders them.
 */
import type { AwsStores } from '@svc/aws';
import { type Auth, type Cluster, silentLog } from '@svc/core';
import { localClusterName } from '@svc/kube/settings';
import type { LocalCluster } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import { ServiceSettings, settingsFromEnvironment } from '@svc/wiring';
import { checkOutsideClusters, localClusterNames, nameOutsideClusters } from './clusters.ts';
import { seedDemoCatalog } from './demo.ts';
import type { FunctionPolicies } from './function-policies.ts';
import type { LocalIdentityProvider } from './identity-provider.ts';
import type { ProvisionedResources } from './provision.ts';
import { stackEnvironment, workerSettingsOf } from './stack/environment.ts';
import { startForge } from './stack/forge.ts';
import { connectFront, startAuth, startFront } from './stack/front.ts';
import { type FunctionClients, type OperatorClients, wireAccess } from './stack/functions.ts';
import {
  extraClusters,
  type LocalClusterControl,
  localClusterControl,
  operatorClusters,
  startInfrastructure,
} from './stack/infrastructure.ts';
import type { Cleanups, StackOptions } from './stack/options.ts';
import { seedBeforeServing } from './stack/seed.ts';
import { startWorker, type WorkerControl } from './stack/worker.ts';

export { emulatorTimeouts, localCursorKey, type StackOptions } from './stack/options.ts';

export interface Stack extends LocalClusterControl, WorkerControl {
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
  /** Every store as the API built it, before the test's wrappers. */
  readonly stores: AwsStores;
  /** The emulators as the operator reaches them (see {@link OperatorClients}). */
  readonly clients: OperatorClients;
  /** The clients each function's services run on, each held to that function's IAM policy. */
  readonly functionClients: FunctionClients;
  /** Who each function is to IAM, and the policy it is held to (a test may narrow one). */
  readonly policies: Pick<FunctionPolicies, 'identity' | 'edit'>;
  /** `local` as its operator (an admin) reaches it: what a test arranges or inspects there. */
  readonly cluster: Cluster.ClusterPort;
  /** Every cluster the API uses (the local ones with its identity, the outside ones), by name. */
  readonly clusters: Cluster.ClusterRegistry;
  readonly localCluster: LocalCluster;
  /** The local forge, unless turned off. */
  readonly forge: LocalForge | null;
  /** What the worker counted (messages for unknown operations, lost chain writes). */
  workerCounts(): Readonly<Record<string, number>>;
  /**
   * The topics the worker's IAM policy grants from now on, leaving the catalog's view alone: a
   * stage redeployed with other `messageTopics` after the catalog was applied.
   */
  grantWorkerTopics(topics: readonly string[]): void;
  stop(): Promise<void>;
}

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
    const front = await startFront(options, host, cleanups);
    const forge = await startForge(options, front.apiUrl, log, cleanups);
    const auth = await startAuth(options, host, front.apiUrl, cleanups);
    const environment = stackEnvironment(options, infrastructure, outside, forge.forge, auth.environment);
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
    const app = connectFront(
      front,
      forge,
      functions,
      settings.auth,
      auth.identityProvider,
      options.consoleRefreshMs,
    );
    // Seeded once the API listens: the demo's log links name the port it actually got.
    if (options.seed !== false) await seedDemoCatalog(api, front.apiUrl, extraClusters(infrastructure));
    const worker = await startWorker(options, functions.worker, cleanups);
    front.serve(app);
    const local = infrastructure.localClusters[0]?.cluster;
    if (!local) throw new Error('the stack runs at least one local cluster');
    return {
      apiUrl: front.apiUrl,
      forge: forge.forge,
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
      workerCounts: functions.workerCounts,
      grantWorkerTopics: (topics) => policies.grantWorkerTopics(topics),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
