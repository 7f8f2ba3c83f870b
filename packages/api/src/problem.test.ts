import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './env.ts';
import { isDependencyFailure, onError } from './problem.ts';

/** Outages cannot be caused on demand against the emulators, so these errors are built by hand. */
function answerTo(error: Error) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', 'req-1');
    await next();
  });
  app.get('/', () => {
    throw error;
  });
  app.onError(onError);
  return app.request('/');
}

const sdkError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

describe('onError', () => {
  it.each([
    ['a DynamoDB 500', sdkError('InternalServerError', 500)],
    ['DynamoDB throttling', sdkError('ProvisionedThroughputExceededException', 400)],
    ['a refused connection', Object.assign(new Error('fetch failed'), { cause: { code: 'ECONNREFUSED' } })],
    ['a Kubernetes 503', Object.assign(new Error('HTTP-Code: 503'), { code: 503 })],
  ])('answers %s with 503 dependency_unavailable and Retry-After', async (_what, error) => {
    expect(isDependencyFailure(error)).toBe(true);
    const response = await answerTo(error);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toMatchObject({ code: 'dependency_unavailable', instance: 'req-1' });
  });

  it('answers a bug with 500, the request id and no internals', async () => {
    const response = await answerTo(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'internal_error', instance: 'req-1' });
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('leaves a client error of an AWS SDK call to be a bug, not an outage', () => {
    expect(isDependencyFailure(sdkError('ValidationException', 400))).toBe(false);
  });
});
