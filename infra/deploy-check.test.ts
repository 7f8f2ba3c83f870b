import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDeployment } from './deploy-check.ts';

const commit = 'c'.repeat(40);
let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A stage that answers the `n`th request to each path with `answers[path][n]` (the last one after). */
async function stage(answers: Record<string, { status: number; body: unknown }[]>): Promise<string> {
  const seen: Record<string, number> = {};
  server = createServer((request, response) => {
    const path = request.url ?? '';
    const list = answers[path] ?? [{ status: 404, body: {} }];
    const n = (seen[path] ?? -1) + 1;
    seen[path] = n;
    const answer = list[Math.min(n, list.length - 1)] as { status: number; body: unknown };
    response.writeHead(answer.status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

const version = (c: string) => ({
  status: 200,
  body: { service: 'preview-composition-service', release: '1', commit: c },
});
const healthy = {
  status: 200,
  body: {
    status: 'ok',
    dependencies: { dynamodb: { status: 'ok' }, sqs: { status: 'ok' }, cluster: { status: 'ok' } },
  },
};
const clusterDown = {
  status: 503,
  body: { status: 'degraded', dependencies: { dynamodb: { status: 'ok' }, cluster: { status: 'error' } } },
};

describe('the deploy check', () => {
  it('asks again until the stage runs the deployed commit and every dependency is ok', async () => {
    const url = await stage({
      '/version': [version('a'.repeat(40)), version(commit)],
      '/healthz': [clusterDown, healthy],
    });
    const lines: string[] = [];
    await checkDeployment({ url, commit, attempts: 3, delayMs: 1, log: (line) => lines.push(line) });
    expect(lines[0]).toMatch(
      /^deploy check 1\/3: \/version answered 200 with commit "a{40}", not c{40}; \/healthz answered 503 \(cluster error\)$/,
    );
    expect(lines.at(-1)).toMatch(/passed/);
  });

  it('fails naming what it saw last when the attempts run out', async () => {
    const url = await stage({ '/version': [version(commit)], '/healthz': [clusterDown] });
    await expect(checkDeployment({ url, commit, attempts: 2, delayMs: 1, log: () => {} })).rejects.toThrow(
      /is not what was deployed: \/healthz answered 503 \(cluster error\)$/,
    );
  });

  it('counts a stage that does not answer as not deployed', async () => {
    await expect(
      checkDeployment({ url: 'http://127.0.0.1:9', commit, attempts: 1, log: () => {} }),
    ).rejects.toThrow(/\/version answered 0/);
  });
});
