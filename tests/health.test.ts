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
