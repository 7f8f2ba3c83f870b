import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
/** Admin's bearer token: a caller the mode identifies. */
let http: HttpClient;
/** No credential: anyone on the internet. */
let anyone: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Token, clusters: 2 }, async (started) => {
  stack = started.stack;
  http = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await started.token('root', Auth.Role.Admin)}`,
  });
  anyone = httpClient(stack.apiUrl);
});

/**
 * The dependency checks this process sends while `run` runs, seen on the wire: DescribeTable and
 * GetQueueAttributes (the AWS SDK, node:http) and `GET /version` of each cluster (client-node, undici).
 */
async function checksSentDuring(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  const count = (what: string) => {
    seen[what] = (seen[what] ?? 0) + 1;
  };
  const clusters = new Map(
    ['local', 'local-2'].map((name) => [new URL(stack.localClusterOf(name).cluster.url).origin, name]),
  );
  const onNodeHttp = (message: unknown) => {
    const target = (message as { request: ClientRequest }).request.getHeader('x-amz-target');
    if (target === 'DynamoDB_20120810.DescribeTable') count('dynamodb');
    if (target === 'AmazonSQS.GetQueueAttributes') count('sqs');
  };
  const onUndici = (message: unknown) => {
    const { origin, path } = (message as { request: { origin: string; path: string } }).request;
    const cluster = clusters.get(String(origin));
    if (cluster && path === '/version') count(`cluster:${cluster}`);
  };
  subscribe('http.client.request.start', onNodeHttp);
  subscribe('undici:request:create', onUndici);
  try {
    await run();
  } finally {
    unsubscribe('http.client.request.start', onNodeHttp);
    unsubscribe('undici:request:create', onUndici);
  }
  return seen;
}

const oneRound = { dynamodb: 1, sqs: 1, 'cluster:local': 1, 'cluster:local-2': 1 };

describe('GET /healthz', () => {
  it('answers a burst of anonymous requests with one round of dependency checks', async () => {
    let answers: Awaited<ReturnType<HttpClient['get']>>[] = [];
    const sent = await checksSentDuring(async () => {
      answers = await Promise.all(Array.from({ length: 25 }, () => anyone.get('/healthz')));
    });
    expect(sent).toEqual(oneRound);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  });

  it('names no cluster to a caller nobody identified: one cluster entry stands for all of them', async () => {
    const { status, body } = await anyone.get('/healthz');
    expect(status).toBe(200);
    expect(Object.keys(body.dependencies).sort()).toEqual(['cluster', 'dynamodb', 'sqs']);
    expect(body.dependencies.cluster).toMatchObject({ status: 'ok', error: null });
    expect(JSON.stringify(body)).not.toMatch(/local/);
  });

  it('gives a caller the mode identifies a fresh round with each dependency by name and latency', async () => {
    let answer: Awaited<ReturnType<HttpClient['get']>> | undefined;
    const sent = await checksSentDuring(async () => {
      answer = await http.get('/healthz');
    });
    expect(sent).toEqual(oneRound);
    const { status, body } = answer as Awaited<ReturnType<HttpClient['get']>>;
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(Object.keys(body.dependencies).sort()).toEqual([
      'cluster:local',
      'cluster:local-2',
      'dynamodb',
      'sqs',
    ]);
    for (const report of Object.values(body.dependencies)) {
      expect(report).toMatchObject({ status: 'ok', error: null, latency_ms: expect.any(Number) });
    }
    // A bad credential is nobody: the route still answers, with less.
    const forged = await httpClient(stack.apiUrl, { authorization: 'Bearer svc_forged' }).get('/healthz');
    expect(Object.keys(forged.body.dependencies)).not.toContain('cluster:local');
  });

  it('answers unknown routes with problem+json 404', async () => {
    const { status, headers, body } = await http.get('/v1/no-such-route');
    expect(status).toBe(404);
    expect(headers.get('content-type')).toBe('application/problem+json');
    expect(body).toMatchObject({ status: 404, code: 'not_found', errors: [] });
    expect(headers.get('x-request-id')).toBe(body.instance);
  });
});

describe('what every answer carries (Hono request-id and secure-headers)', () => {
  it('is never sniffed into another media type: probes, /v1 answers, problems, the document, the webhook', async () => {
    const answers = [
      await http.get('/healthz'),
      await http.get('/version'),
      await http.get('/v1/compositions'),
      await http.get('/v1/openapi.json'),
      await http.get('/v1/compositions/c-missing'),
      await http.put('/v1/compositions', {}),
      await http.post('/webhooks/forge', {}),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 404, 405, 401]);
    for (const answer of answers) expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it("keeps the caller's request id when it is a safe token, and makes one otherwise", async () => {
    const kept = await http.get('/v1/compositions/c-missing', { 'x-request-id': 'ci-run-7_attempt=2' });
    expect(kept.headers.get('x-request-id')).toBe('ci-run-7_attempt=2');
    expect(kept.body.instance).toBe('ci-run-7_attempt=2');
    const replaced = await http.get('/v1/compositions/c-missing', { 'x-request-id': 'not safe; at all' });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(replaced.body.instance).toBe(replaced.headers.get('x-request-id'));
  });
});

describe('CORS: only the public origin', () => {
  const preflight = (origin: string) =>
    fetch(`${stack.apiUrl}/v1/compositions`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    });

  it('lets a page of the public origin read answers and send its calls, preflight first', async () => {
    const publicOrigin =
      stack.authSettings.mode === Auth.AuthMode.Token ? stack.authSettings.publicOrigin : '';
    const read = await http.get('/v1/compositions', { origin: publicOrigin });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(publicOrigin);
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
    expect(read.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const answer = await preflight(publicOrigin);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(publicOrigin);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    expect(answer.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,idempotency-key,x-csrf-token,x-request-id',
    );
  });

  it('gives any other origin no Access-Control header at all, and no preflight', async () => {
    for (const origin of ['https://evil.example', 'null', `${stack.apiUrl}.evil.example`]) {
      const read = await http.get('/v1/compositions', { origin });
      expect(read.status).toBe(200);
      expect([...read.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
      expect(read.headers.get('vary')).toContain('Origin');
      const answer = await preflight(origin);
      expect(answer.ok).toBe(false);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    const probe = await anyone.get('/healthz', { origin: 'https://evil.example' });
    expect(probe.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('GET /healthz with a cluster down', () => {
  it('says degraded to anyone, and which cluster only to a caller the mode identifies', async () => {
    await stack.localClusterOf('local-2').cluster.stop();
    const named = await http.get('/healthz');
    expect(named.status).toBe(503);
    expect(named.body.dependencies['cluster:local']).toMatchObject({ status: 'ok' });
    expect(named.body.dependencies['cluster:local-2']).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/connection failed/),
    });
    // The round just made answers anyone for the next few seconds.
    const folded = await anyone.get('/healthz');
    expect(folded.status).toBe(503);
    expect(folded.body.status).toBe('degraded');
    expect(folded.body.dependencies.cluster).toEqual({
      status: 'error',
      latency_ms: expect.any(Number),
      error: expect.stringMatching(/^1 of 2 clusters: cluster unavailable: connection failed/),
    });
    expect(JSON.stringify(folded.body)).not.toMatch(/local/);
  });
});
