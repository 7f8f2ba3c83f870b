/**
 * What runs before the services are wired: the emulators (unless the test run shares its own), the
 * local clusters, the table and queues.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createAwsClients } from '@svc/aws';
import type { Cluster } from '@svc/core';
import { clusterFromSettings } from '@svc/kube';
import { type LocalClusterRun, restartLocalCluster, startLocalClusters } from '../clusters.ts';
import { startDynamoDbLocal } from '../dynamodb-local.ts';
import { startSqsEmulator } from '../fauxqs.ts';
import { type ProvisionedResources, provision } from '../provision.ts';
import { type Cleanups, emulatorTimeouts, region, type StackOptions } from './options.ts';

/** What runs before the services are wired: the emulators, the local clusters, the table and queues. */
export interface Infrastructure {
  endpoints: { dynamodbEndpoint: string; sqsEndpoint: string };
  /** `local` first; `restartCluster` replaces an entry. */
  localClusters: LocalClusterRun[];
  resources: ProvisionedResources;
}

export async function startInfrastructure(
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
export const extraClusters = (infrastructure: Infrastructure) =>
  infrastructure.localClusters.slice(1).map((r) => r.name);

/** The operator's client of each of the stack's own clusters (an admin): the demo's seeding, tests. */
export function operatorClusters(infrastructure: Infrastructure): (name: string) => Cluster.ClusterPort {
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
export interface LocalClusterControl {
  /** The stack's own local cluster of that name (`local`, `local-2`…), as it runs now. */
  localClusterOf(name: string): LocalClusterRun;
  /**
   * Stops that local cluster and starts it again, with its state, on the same ports (not `local` in
   * a stack without state: it is kept in memory).
   */
  restartCluster(name: string): Promise<void>;
}

export function localClusterControl(
  infrastructure: Infrastructure,
  options: StackOptions,
): LocalClusterControl {
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

async function startEmulators(
  stateDir: string | undefined,
  cleanups: Cleanups,
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
