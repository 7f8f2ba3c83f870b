import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let http: HttpClient;
useTestStack({}, (started) => {
  http = started.http;
});

describe('GET /healthz', () => {
  it('reports each dependency with its latency', async () => {
    const { status, body } = await http.get('/healthz');
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    for (const name of ['dynamodb', 'sqs']) {
      expect(body.dependencies[name]).toMatchObject({ status: 'ok', error: null });
      expect(body.dependencies[name].latency_ms).toBeGreaterThanOrEqual(0);
    }
    expect(body.dependencies.cluster).toBeDefined();
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
