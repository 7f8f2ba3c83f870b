import type { Jobs } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { drainQueue as drainJobs } from './support/queues.ts';

let stack: Stack;
let http: HttpClient;
const clock = testClock();
let failSends = false;
useTestStack(
  {
    clock,
    worker: false,
    wrapJobs: (jobs): Jobs.JobQueue => ({
      send: (job, options) =>
        failSends ? Promise.reject(new Error('queue unreachable')) : jobs.send(job, options),
    }),
  },
  (started) => {
    ({ stack, http } = started);
  },
);

async function create(name: string, project = 'demo') {
  const { status, body } = await http.post('/v1/compositions', {
    project,
    baseline: 'staging',
    name,
    overrides: {},
  });
  expect(status).toBe(202);
  return body;
}

async function drainQueue(): Promise<{ operation_id: string; step: string }[]> {
  const bodies = await drainJobs(stack.clients.sqs, stack.resources.jobQueueUrl);
  return bodies.map((body) => JSON.parse(body));
}

describe('GET /v1/compositions', () => {
  it('lists newest first with limit and an opaque next_cursor', async () => {
    const made = [];
    for (const name of ['list-a', 'list-b', 'list-c']) {
      made.push(await create(name));
      clock.advance(1);
    }
    const first = await http.get('/v1/compositions?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((c: { id: string }) => c.id)).toEqual([made[2].id, made[1].id]);
    expect(typeof first.body.next_cursor).toBe('string');
    const second = await http.get(`/v1/compositions?limit=2&after=${first.body.next_cursor}`);
    expect(second.body.items[0].id).toBe(made[0].id);
  });

  it('ends with a null next_cursor', async () => {
    const { body } = await http.get('/v1/compositions?limit=200');
    expect(body.next_cursor).toBeNull();
  });

  it('filters by project', async () => {
    const { body } = await http.get('/v1/compositions?project=demo&limit=1');
    expect(body.items).toHaveLength(1);
    const none = await http.get('/v1/compositions?project=other');
    expect(none.body).toEqual({ items: [], next_cursor: null });
  });

  it('keeps destroying compositions in the list', async () => {
    const composition = await create('list-destroying');
    await http.delete(`/v1/compositions/${composition.id}`);
    const { body } = await http.get('/v1/compositions?limit=200');
    expect(body.items.find((c: { id: string }) => c.id === composition.id)?.phase).toBe('destroying');
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=ten', 'limit'],
    ['after=not-a-cursor', 'after'],
    ['after=', 'after'],
    ['project=Not_A_Name', 'project'],
  ])('answers %s with 400 naming the parameter', async (query, name) => {
    const { status, body } = await http.get(`/v1/compositions?${query}`);
    expect(status).toBe(400);
    expect(body.code).toBe('invalid_query');
    expect(body.errors[0].path).toBe(name);
  });

  it('ignores unknown query parameters', async () => {
    expect((await http.get('/v1/compositions?colour=blue')).status).toBe(200);
  });
});

describe('GET /v1/compositions/{id}/status and /endpoints', () => {
  it('answers the lightweight status', async () => {
    const composition = await create('status');
    const { status, body } = await http.get(`/v1/compositions/${composition.id}/status`);
    expect(status).toBe(200);
    expect(body).toEqual({
      id: composition.id,
      phase: 'created',
      generation: 1,
      observed_generation: 0,
      expires_at: composition.expires_at,
      latest_operation: composition.latest_operation,
    });
  });

  it('answers the endpoints with readiness', async () => {
    const composition = await create('endpoints');
    const { body } = await http.get(`/v1/compositions/${composition.id}/endpoints`);
    expect(body).toEqual({ id: composition.id, phase: 'created', endpoints: composition.endpoints });
  });

  it('reads a composition past expires_at as expired', async () => {
    const { body: composition } = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'expiring',
      overrides: {},
      ttl: '1m',
    });
    clock.advance(60);
    expect((await http.get(`/v1/compositions/${composition.id}/status`)).body.phase).toBe('expired');
  });

  it.each([
    '/v1/compositions/c-missing',
    '/v1/compositions/c-missing/status',
    '/v1/compositions/NOT_AN_ID/endpoints',
  ])('answers 404 for %s', async (path) => {
    const { status, body } = await http.get(path);
    expect(status).toBe(404);
    expect(body.code).toBe('not_found');
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const { status, headers, body } = await http.put('/v1/compositions', {});
    expect(status).toBe(405);
    expect(body.code).toBe('method_not_allowed');
    expect(headers.get('allow')).toBe('POST, GET');
  });
});

describe('enqueueing and redispatch', () => {
  it('enqueues the first step of every accepted operation', async () => {
    await drainQueue();
    const composition = await create('enqueued');
    const jobs = await drainQueue();
    expect(jobs).toEqual([
      {
        kind: 'step',
        operation_id: composition.latest_operation.id,
        composition_id: composition.id,
        step: 'apply',
      },
    ]);
  });

  it('re-enqueues an operation whose send failed, once it is overdue', async () => {
    await drainQueue();
    failSends = true;
    const composition = await create('stranded');
    failSends = false;
    expect(await drainQueue()).toEqual([]);

    await stack.scheduler.run('redispatch-sweep');
    const ours = (jobs: { operation_id: string }[]) =>
      jobs.filter((j) => j.operation_id === composition.latest_operation.id);
    expect(ours(await drainQueue())).toEqual([]);

    clock.advance(31);
    await stack.scheduler.run('redispatch-sweep');
    expect(ours(await drainQueue())).toEqual([
      expect.objectContaining({ step: 'apply', composition_id: composition.id }),
    ]);

    await stack.scheduler.run('redispatch-sweep');
    expect(ours(await drainQueue())).toEqual([]);
  });
});
