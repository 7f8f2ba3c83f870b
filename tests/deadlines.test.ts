/**
 * Deadlines: with DynamoDB frozen — connections accepted, nothing ever answered, as a table behind
 * a partitioned network looks — every route of the API answers within its deadline (about 2 s), a 503
 * `dependency_unavailable` where it needed the table, never a hung request.
 */
import { createServer, type Server, Socket } from 'node:net';
import { appFromEnvironment } from '@svc/api/runtime';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: Stack;
useTestStack({ worker: false }, (started) => {
  stack = started.stack;
});

/** A TCP proxy to DynamoDB Local that can be frozen: then it takes bytes and answers none. */
function freezableProxy(target: URL): Promise<{ url: string; freeze(): void; close(): Promise<void> }> {
  let frozen = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (frozen) {
      client.on('data', () => {});
      return;
    }
    const upstream = new Socket();
    sockets.add(upstream);
    upstream.connect(Number(target.port), target.hostname);
    client.on('data', (chunk) => {
      if (!frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!frozen) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    upstream.on('close', () => sockets.delete(upstream));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        freeze: () => {
          frozen = true;
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    }),
  );
}

describe('a frozen table', () => {
  let proxy: Awaited<ReturnType<typeof freezableProxy>>;
  let app: ReturnType<typeof appFromEnvironment>['app'];
  beforeAll(async () => {
    proxy = await freezableProxy(new URL(stack.endpoints.dynamodb));
    ({ app } = appFromEnvironment(
      {
        AUTH_MODE: 'dev',
        AWS_REGION: 'us-east-1',
        TABLE_NAME: stack.resources.tableName,
        JOB_QUEUE_URL: stack.resources.jobQueueUrl,
        DEAD_LETTER_QUEUE_URL: stack.resources.deadLetterQueueUrl,
        PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
        EKS_CLUSTER_NAME: 'staging',
        CURSOR_KEY: 'deadline-test-cursor-key-of-32-chars',
        DYNAMODB_ENDPOINT: proxy.url,
        SQS_ENDPOINT: stack.endpoints.sqs,
      },
      { allowDev: true, log: () => {} },
    ));
  });
  afterAll(() => proxy?.close());

  it('answers every route within the API’s deadline: 503 dependency_unavailable where it needed the table', async () => {
    const ask = (method: string, path: string, body?: unknown) =>
      app.request(`http://127.0.0.1${path}`, {
        method,
        headers: { host: '127.0.0.1', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // Warm: the app reads the table through the proxy while it still answers.
    expect((await ask('GET', '/v1/projects')).status).toBe(200);
    proxy.freeze();

    const document = (await (await ask('GET', '/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const fill = (path: string) =>
      path
        .replace('{project}', 'demo')
        .replace('{component}', 'service-b')
        .replace('{frontend}', 'web')
        .replace('{revision}', 'a'.repeat(40))
        .replace('{username}', 'alice')
        .replace('{repository}', 'acme%2Fshop')
        .replace(/\{[a-z_]+\}/g, 'c-frozen');
    const routes = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path: fill(path) })),
    );
    expect(routes.length).toBeGreaterThan(40);
    const answers = await Promise.all(
      routes.map(async ({ method, path }) => {
        const started = performance.now();
        const response = await ask(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
        const text = await response.text();
        return { route: `${method} ${path}`, status: response.status, ms: performance.now() - started, text };
      }),
    );
    // By design 2 attempts of 1 s (apiTimeouts): alone every route answers in about 2.1 s. The bound
    // leaves room for a CI machine whose event loop is starved by parallel suites, and still fails a
    // route that waits on the worker's deadlines (3 attempts of 2.5 s) or hangs.
    const slow = answers.filter((a) => a.ms > 4500).map((a) => `${a.route}: ${Math.round(a.ms)} ms`);
    expect(slow).toEqual([]);
    const broken = answers
      .filter((a) => a.status >= 500 && a.status !== 503)
      .map((a) => `${a.route}: ${a.status}`);
    expect(broken).toEqual([]);
    const unavailable = answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThan(20);
    for (const answer of unavailable) {
      if (answer.route.startsWith('GET /healthz')) continue;
      expect(JSON.parse(answer.text).code, answer.route).toBe('dependency_unavailable');
    }
  }, 60_000);
});
