/** A recheck's lists go to the API server's watch cache (`resourceVersion=0`), and answer what a quorum read does. */
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';

let local: LocalCluster;
let relay: Server;
const requests: string[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  local = await startLocalCluster({ gatewayPort: 0, podReadyDelayMs: 10 });
  const target = new URL(local.url);
  // A TCP relay that notes each request line it carries.
  relay = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n')[0] ?? '';
      if (/^[A-Z]+ \//.test(line)) requests.push(line);
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await local.stop();
});

describe('cached lists', () => {
  it('ask for resourceVersion=0 and answer the same Deployments and Pods as a quorum read', async () => {
    const through = local
      .kubeconfig()
      .replace(local.url, `http://127.0.0.1:${(relay.address() as AddressInfo).port}`);
    const cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(through)));
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
    requests.length = 0;
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
    const lists = requests.filter((r) => r.includes('labelSelector=app%3Dcached'));
    expect(lists.filter((r) => r.includes('resourceVersion=0'))).toHaveLength(2);
    expect(lists.filter((r) => !r.includes('resourceVersion=0'))).toHaveLength(2);
  });
});
