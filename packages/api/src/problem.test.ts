import { Dependency, DependencyUnavailableError } from '@svc/core';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from './env.ts';
import { onError } from './problem.ts';

/** What the request's log was told. */
const logged: Record<string, unknown>[] = [];

/** How adapters classify real SDK and client-node errors is tested in packages/aws and packages/kube. */
function answerTo(error: Error) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set('requestId', 'req-1');
    c.set('log', (entry) => logged.push({ ...entry, request_id: 'req-1' }));
    await next();
  });
  app.get('/', () => {
    throw error;
  });
  app.onError(onError);
  return app.request('/');
}

describe('onError', () => {
  it.each(Object.values(Dependency))(
    'answers %s being unavailable with 503 dependency_unavailable and Retry-After',
    async (dependency) => {
      const response = await answerTo(
        new DependencyUnavailableError(dependency, 'connect ECONNREFUSED 127.0.0.1:1', new Error('cause')),
      );
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      const body = await response.json();
      expect(body).toMatchObject({ code: 'dependency_unavailable', instance: 'req-1' });
      expect(JSON.stringify(body)).not.toContain('ECONNREFUSED');
    },
  );

  it('answers a bug with 500, the request id and no internals', async () => {
    const response = await answerTo(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'internal_error', instance: 'req-1' });
    expect(JSON.stringify(body)).not.toContain('secret');
    // The internals go to the request's log, tagged with its id, not to the caller.
    expect(logged.at(-1)).toMatchObject({ level: 'error', msg: 'unhandled error', request_id: 'req-1' });
    expect(JSON.stringify(logged.at(-1))).toContain('secret');
  });

  it('does not guess outages from an error shape an adapter left unclassified', async () => {
    const unclassified = Object.assign(new Error('InternalServerError'), {
      name: 'InternalServerError',
      $metadata: { httpStatusCode: 500 },
    });
    expect((await answerTo(unclassified)).status).toBe(500);
  });
});
