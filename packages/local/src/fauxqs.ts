import { type ListenOptions, Server } from 'node:net';
import { startFauxqs } from 'fauxqs';
import { freePort } from './ports.ts';

export interface SqsEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * fauxqs (SQS + SNS) in process, listening on 127.0.0.1; `dataDir` turns on its SQLite persistence.
 * fauxqs always asks to listen on 0.0.0.0 (its `host` option only names the host in queue URLs),
 * which would let anyone on the network enqueue jobs: while it starts, a listen for exactly its
 * port on 0.0.0.0 is turned into one on loopback.
 */
export async function startSqsEmulator(
  options: { port?: number; dataDir?: string } = {},
): Promise<SqsEmulator> {
  const port = options.port ?? (await freePort());
  const server = await onLoopback(port, () =>
    startFauxqs({
      port,
      host: '127.0.0.1',
      logger: false,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }),
  );
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

async function onLoopback<T>(port: number, start: () => Promise<T>): Promise<T> {
  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, ...args: unknown[]) {
    const [first] = args;
    if (isAllInterfaces(first, port)) args[0] = { ...first, host: '127.0.0.1' };
    return (listen as (...a: unknown[]) => Server).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    Server.prototype.listen = listen;
  }
}

function isAllInterfaces(options: unknown, port: number): options is ListenOptions {
  if (typeof options !== 'object' || options === null) return false;
  const { host, port: asked } = options as ListenOptions;
  return asked === port && (host === '0.0.0.0' || host === '::' || host === undefined);
}
