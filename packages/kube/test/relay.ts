/**
 * A TCP relay in front of a local cluster, for tests that watch what the adapter sends on the wire:
 * the connections it opens and the request lines it writes.
 */
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';
import type { LocalCluster } from '@svc/local-cluster';

export interface Relay {
  /** The cluster's kubeconfig, pointing through the relay. */
  kubeconfig(): string;
  /** Connections clients opened through the relay. */
  opened: number;
  /** Request lines (`GET /apis/… HTTP/1.1`) in the order they were carried. */
  readonly requests: string[];
  close(): Promise<void>;
}

export async function startRelay(local: LocalCluster): Promise<Relay> {
  const target = new URL(local.url);
  const sockets = new Set<Socket>();
  const relay: Omit<Relay, 'kubeconfig' | 'close'> = { opened: 0, requests: [] };
  const server = createServer((client) => {
    relay.opened++;
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket)).on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => {
      const line = chunk.toString('latin1').split('\r\n')[0] ?? '';
      if (/^[A-Z]+ \//.test(line)) relay.requests.push(line);
    });
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const through = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(relay, {
    kubeconfig: () => local.kubeconfig().replace(local.url, through),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
