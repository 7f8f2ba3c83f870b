import { clientOver, type Transport } from '@svc/client';
import { type OperationId, operations } from '@svc/contract';
import { Auth } from '@svc/core';
import { Hono } from 'hono';
import { requestId } from 'hono/request-id';
import { describe, expect, it } from 'vitest';
import { bindOperations, type Handlers } from './bind.ts';
import type { AppEnv } from './env.ts';
import { onError } from './problem.ts';

const answered = () => new Response('handled');

/** A handler per operation that answers which one ran and what it was given. */
function echoing(): Handlers {
  const handlers: Record<string, unknown> = {};
  for (const id of Object.keys(operations)) {
    handlers[id] = (_c: unknown, request: unknown) => Response.json({ id, request });
  }
  return handlers as Handlers;
}

function app(handlers: Handlers) {
  const hono = new Hono<AppEnv>();
  hono.use(requestId());
  hono.use(async (c, next) => {
    c.set('identity', Auth.devIdentity);
    await next();
  });
  bindOperations(hono, handlers);
  hono.onError(onError);
  return hono;
}

describe('binding the contract', () => {
  it('refuses to start with an operation that has no handler, naming it', () => {
    const { getVersion: _, ...handlers } = echoing();
    expect(() => app(handlers as Handlers)).toThrow('the API cannot start: no handler for getVersion');
  });

  it('refuses a handler for an operation the contract does not declare', () => {
    const handlers = { ...echoing(), getWeather: answered } as Handlers & Record<string, unknown>;
    expect(() => app(handlers)).toThrow('handlers for operations the contract does not declare: getWeather');
  });

  it('hands the handler the path and query as the contract reads them', async () => {
    const response = await app(echoing()).request(
      '/v1/compositions/c-1/components/service-b/logs?tail_lines=5&previous',
    );
    expect(await response.json()).toEqual({
      id: 'getComponentLogs' satisfies OperationId,
      request: {
        path: { id: 'c-1', component: 'service-b' },
        query: { tail_lines: 5, previous: true },
        headers: {},
      },
    });
  });

  it('hands the handler the headers the operation declares, and answers a bad one with its own 400', async () => {
    const sent = { project: 'demo', name: 'retried' };
    const create = (key: string) =>
      app(echoing()).request('/v1/compositions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key, 'x-other': 'kept out' },
        body: JSON.stringify(sent),
      });
    expect(await (await create('retry-1')).json()).toMatchObject({
      id: 'createComposition',
      request: {
        headers: { 'Idempotency-Key': 'retry-1' },
        idempotency: { operation: 'createComposition', key: 'retry-1', payload: sent },
      },
    });
    for (const key of ['', 'k'.repeat(129), 'tab\tinside']) {
      const refused = await create(key);
      expect(refused.status, key).toBe(400);
      expect(await refused.json()).toMatchObject({
        code: 'invalid_idempotency_key',
        detail: 'Idempotency-Key must be 1–128 printable ASCII characters.',
        errors: [{ path: 'Idempotency-Key', message: 'invalid value' }],
      });
    }
  });

  it('answers a segment that cannot name anything 404 and a bad query value 400, before the handler', async () => {
    const missing = await app(echoing()).request('/v1/compositions/NOT_AN_ID');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      code: 'not_found',
      detail: 'composition "NOT_AN_ID" not found',
    });
    const bad = await app(echoing()).request('/v1/compositions?limit=0&colour=blue');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      code: 'invalid_query',
      detail: 'limit: must be an integer from 1 to 200',
      errors: [{ path: 'limit', message: 'must be an integer from 1 to 200' }],
    });
  });

  it('hands the handler the body its schema reads, and answers one it refuses 422 before the handler', async () => {
    const send = (path: string, method: string, body?: string) =>
      app(echoing()).request(path, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
      });
    const given = async (answer: Response) =>
      ((await answer.json()) as { request: { body: unknown } }).request.body;
    const update = await send('/v1/compositions/c-1', 'PATCH', '{"expected_generation":2,"overrides":{}}');
    expect(await given(update)).toEqual({
      expected_generation: 2,
      overrides: {},
      expected_preview_revisions: {},
    });
    const refused = await send('/v1/compositions/c-1', 'PATCH', '{"expected_generation":"2","overrides":[]}');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: '/overrides', message: 'must be an object, not an array' }],
    });
    // A manifest is judged by its use case (problems as data): handed as sent.
    const judged = await send('/v1/catalog/validate', 'POST', '{"projects":"none"}');
    expect(await given(judged)).toEqual({ projects: 'none' });
    // An optional body left out reads as {}, with the schema's defaults.
    const replay = await send('/v1/admin/dead-letters/replay', 'POST');
    expect(await given(replay)).toEqual({
      dry_run: false,
      limit: 10,
      reason: 'replayed from the dead-letter queue',
    });
  });

  it('reads what the typed client sends: encoded segments, typed query values, headers and the JSON body', async () => {
    const hono = app(echoing());
    const inProcess: Transport = async (request) => {
      const search = new URLSearchParams(request.query);
      const response = await hono.request(`${request.path}?${search}`, {
        method: request.method,
        headers: { ...request.headers, 'content-type': 'application/json' },
        ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
      });
      return { status: response.status, headers: {}, body: await response.json() };
    };
    const client = clientOver(inProcess);
    const policy = await client.send('getPreviewPolicy', {
      path: { project: 'demo', repository: 'acme/web' },
    });
    expect(policy.body).toEqual({
      id: 'getPreviewPolicy',
      request: { path: { project: 'demo', repository: 'acme/web' }, query: {}, headers: {} },
    });
    const logs = await client.send('getComponentLogs', {
      path: { id: 'c-1', component: 'service-b' },
      query: { previous: false, since_seconds: 60 },
    });
    expect(logs.body).toMatchObject({ request: { query: { previous: false, since_seconds: 60 } } });
    const body = { expected_generation: 2, overrides: {} };
    const update = await client.send('updateComposition', { path: { id: 'c-1' }, body });
    expect(update.body).toMatchObject({ id: 'updateComposition', request: { body } });
  });
});
