/** Counts the connections the adapter opens through a relay in front of the local cluster. */
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Relay, startRelay } from '../test/relay.ts';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';

let local: LocalCluster;
let relay: Relay;

beforeAll(async () => {
  local = await startLocalCluster({ gatewayPort: 0 });
  relay = await startRelay(local);
});

afterAll(async () => {
  await relay.close();
  await local.stop();
});

describe('the Kubernetes adapter’s connections', () => {
  it('keeps one connection alive across sequential requests and watches', async () => {
    const cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(relay.kubeconfig())));
    relay.opened = 0;
    for (let i = 0; i < 50; i++) await cluster.getDeployment('default', `absent-${i}`);
    await cluster.watchDeployments('default', 'app=none', () => false, 50);
    await cluster.listDeployments('default', 'app=none');
    // The watch holds its connection until it is aborted, so the requests around it may need a second.
    expect(relay.opened).toBeLessThanOrEqual(2);
  });
});
