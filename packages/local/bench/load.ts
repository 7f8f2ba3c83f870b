/** A closed-loop load generator: `concurrency` clients each send the next request when the last answered. */
import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function load(options: {
  url: string;
  method?: string;
  body?: () => string;
  headers?: Record<string, string>;
  concurrency: number;
  seconds: number;
  expectStatus: number;
}): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.seconds * 1000;
  const target = new URL(options.url);

  const once = () =>
    new Promise<number>((resolve, reject) => {
      const body = options.body?.();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method: options.method ?? 'GET',
          headers: { ...options.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const status = await once();
          if (status !== options.expectStatus) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: at(0.5), p99: at(0.99) };
}

export function row(name: string, r: LoadResult): string {
  return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms   errors ${r.errors}`;
}
