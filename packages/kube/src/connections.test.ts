import type { AddressInfo } from 'node:net';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { type LocalCluster, startLocalCluster } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromString } from './config.ts';

/** A TCP relay in front of the local cluster that counts the connections clients open through it. */
let local: LocalCluster;
let relay: Server;
let opened = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  local = await startLocalCluster({ gatewayPort: 0 });
  const target = new URL(local.url);
  relay = createServer((client) => {
    opened++;
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  await local.stop();
});

describe('the Kubernetes adapter’s connections', () => {
  it('keeps one connection alive across sequential requests and watches', async () => {
    const through = local
      .kubeconfig()
      .replace(local.url, `http://127.0.0.1:${(relay.address() as AddressInfo).port}`);
    const cluster = kubeCluster(fixedKubeConfig(kubeConfigFromString(through)));
    opened = 0;
    for (let i = 0; i < 50; i++) await cluster.getDeployment('default', `absent-${i}`);
    await cluster.watchDeployments('default', 'app=none', () => false, 50);
    await cluster.listDeployments('default', 'app=none');
    // The watch holds its connection until it is aborted, so the requests around it may need a second.
    expect(opened).toBeLessThanOrEqual(2);
  });
});
