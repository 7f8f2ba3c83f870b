import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free port for a process about to start, below the kernel's ephemeral range: `listen(0)` and
 * outgoing connections never take one there, so it stays free until the process binds it, however
 * many sockets other suites open meanwhile (a port `listen(0)` handed out can be taken by the next
 * socket before the child binds it). Ports the caller already picked are not picked again.
 */
export async function freePort(host = '127.0.0.1', taken: readonly number[] = []): Promise<number> {
  const below = ephemeralRangeStart();
  for (;;) {
    const port = randomInt(20_000, below);
    if (!taken.includes(port) && !(await portInUse(port, host))) return port;
  }
}

/** Linux's first ephemeral port; elsewhere IANA's 49152 is above the 32768 assumed. */
function ephemeralRangeStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const port = Number(start);
    return port > 20_100 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

/** True when something already listens on host:port. */
export async function portInUse(port: number, host = '127.0.0.1'): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}
