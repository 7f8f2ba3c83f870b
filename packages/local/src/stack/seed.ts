/** What the stack puts in place before it serves: the demo's queues, baselines and policy, the people. */
import { Auth, type Cluster } from '@svc/core';
import { localClusterName } from '@svc/kube/settings';
import type { Services } from '@svc/wiring';
import { localUsers, seedUsers } from '../auth.ts';
import {
  demoBaselineOn,
  demoManifest,
  deployBaselineOf,
  deployDemoBaseline,
  setUpDemoMessaging,
} from '../demo.ts';
import { seedDemoPolicy } from '../forge.ts';
import type { OperatorClients } from './functions.ts';
import type { StackOptions } from './options.ts';

/** The demo's queues, baselines (one on each local cluster) and preview policy, and password mode's people. */
export async function seedBeforeServing(
  options: StackOptions,
  services: Services<unknown>,
  operator: (name: string) => Cluster.ClusterPort,
  clients: OperatorClients,
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
