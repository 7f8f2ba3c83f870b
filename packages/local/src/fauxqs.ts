import { startFauxqs } from 'fauxqs';
import { freePort } from './ports.ts';

export interface SqsEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** fauxqs (SQS + SNS) in process; `dataDir` turns on its SQLite persistence. */
export async function startSqsEmulator(
  options: { port?: number; dataDir?: string } = {},
): Promise<SqsEmulator> {
  const port = options.port ?? (await freePort());
  const server = await startFauxqs({
    port,
    host: '127.0.0.1',
    logger: false,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}
