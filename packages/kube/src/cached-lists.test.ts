/** A recheck's lists go to the API server's watch cache (`resourceVersion=0`), and answer what a quorum read does. */
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Relay, startRelay } from '../test/relay.ts';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';

let local: LocalCluster;
let relay: Relay;

beforeAll(async () => {
  local = await startLocalCluster({ gatewayPort: 0, podReadyDelayMs: 10 });
  relay = await startRelay(local);
});

afterAll(async () => {
  await relay.close();
  await local.stop();
});

describe('cached lists', () => {
  it('ask for resourceVersion=0 and answer the same Deployments and Pods as a quorum read', async () => {
    const cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(relay.kubeconfig())));
    await cluster.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'cached' } },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'cached' } },
        template: {
          metadata: { labels: { app: 'cached' } },
          spec: { containers: [{ name: 'web', image: 'registry.example.com/web:1' }] },
        },
      },
    } as never);
    await cluster.watchDeployments(
      'default',
      'app=cached',
      (seen) => (seen[0]?.status?.availableReplicas ?? 0) >= 1,
      5000,
    );
    relay.requests.length = 0;
    const [quorum, cached, quorumPods, cachedPods] = await Promise.all([
      cluster.listDeployments('default', 'app=cached'),
      cluster.listDeployments('default', 'app=cached', { cached: true }),
      cluster.listPods('default', 'app=cached'),
      cluster.listPods('default', 'app=cached', { cached: true }),
    ]);
    const names = (objects: { kind: string; metadata: { name: string } }[]) =>
      objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(names(cached)).toEqual(names(quorum));
    expect(cached[0]?.status?.conditions).toEqual(quorum[0]?.status?.conditions);
    expect(names(cachedPods)).toEqual(names(quorumPods));
    expect(cachedPods).toHaveLength(1);
    const lists = relay.requests.filter((r) => r.includes('labelSelector=app%3Dcached'));
    expect(lists.filter((r) => r.includes('resourceVersion=0'))).toHaveLength(2);
    expect(lists.filter((r) => !r.includes('resourceVersion=0'))).toHaveLength(2);
  });
});
