import { createServer } from 'node:net';
import { jsonLog } from '@svc/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { appFromEnvironment } from './runtime.ts';

/** A port nothing listens on: taken, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('GET /healthz with its dependencies down', () => {
  it('answers 503 with a short cause per dependency, and keeps addresses for the server log', async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const { app } = appFromEnvironment(
      {
        AUTH_MODE: 'token',
        AUTH_SETTINGS: JSON.stringify({ public_origin: 'https://svc.acme.io' }),
        AWS_REGION: 'eu-west-1',
        TABLE_NAME: 'svc-table',
        JOB_QUEUE_URL: `http://127.0.0.1:${port}/000000000000/svc-jobs`,
        DEAD_LETTER_QUEUE_URL: `http://127.0.0.1:${port}/000000000000/svc-jobs-dlq`,
        PREVIEW_URL_TEMPLATE: 'https://{id}.{domain}/',
        CURSOR_KEY: 'test-cursor-key-of-at-least-32-characters',
        DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}`,
        SQS_ENDPOINT: `http://127.0.0.1:${port}`,
        EKS_CLUSTER_NAME: 'staging',
      },
      { allowDev: false, log: jsonLog((line) => lines.push(line)) },
    );
    const response = await app.request('/healthz', { headers: { 'x-request-id': 'health-1' } });
    const text = await response.text();
    expect(response.status).toBe(503);
    const body = JSON.parse(text);
    expect(body.dependencies.dynamodb).toMatchObject({
      status: 'error',
      error: 'dynamodb unavailable: connection failed (ECONNREFUSED)',
    });
    expect(body.dependencies.sqs.error).toMatch(/^sqs unavailable: connection failed/);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(String(port));
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({
        msg: 'dependency check failed',
        dependency: 'dynamodb',
        request_id: 'health-1',
        error: expect.stringContaining(`127.0.0.1:${port}`),
      }),
    );
  }, 15_000);
});
