import { Compositions } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let http: HttpClient;
const clock = testClock();
useTestStack({ clock, worker: false }, (started) => {
  ({ stack, http } = started);
});

async function create(
  overrides: Record<string, unknown> = { 'service-b': { image: image('service-b', 'v1') } },
) {
  const { status, body } = await http.post('/v1/compositions', {
    project: 'demo',
    baseline: 'staging',
    name: 'life',
    overrides,
  });
  expect(status).toBe(202);
  return body;
}

/** Plays the worker's part for rules that only apply once a rollout finished. */
async function markRolledOut(
  id: string,
  phase: typeof Compositions.Phase.Ready | typeof Compositions.Phase.Failed = Compositions.Phase.Ready,
) {
  const record = (await stack.stores.compositions.get(id)) as Compositions.CompositionRecord;
  const done: Compositions.CompositionRecord = {
    ...record,
    phase,
    observed_generation: phase === Compositions.Phase.Ready ? record.generation : record.observed_generation,
    public_ready: phase === Compositions.Phase.Ready,
    active_operation: null,
    latest_operation: {
      ...record.latest_operation,
      status: phase === Compositions.Phase.Ready ? 'succeeded' : 'failed',
    },
    lock_version: record.lock_version + 1,
  };
  expect(
    await stack.stores.compositions.replace({
      composition: done,
      expected_lock_version: record.lock_version,
      events: [],
    }),
  ).toBe(true);
}

describe('PATCH /v1/compositions/{id}', () => {
  it('refuses an update while the create is still rolling out with 409 operation_in_progress', async () => {
    const composition = await create();
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    expect(status).toBe(409);
    expect(body.code).toBe('operation_in_progress');
  });

  it('rolls a ready composition to generation 2 with URL and expiry unchanged', async () => {
    const composition = await create();
    await markRolledOut(composition.id);
    const overrides = {
      'service-b': { image: image('service-b', 'v2') },
      'service-c': { image: image('service-c', 'v2') },
    };
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides,
    });
    expect(status).toBe(202);
    expect(body).toMatchObject({
      generation: 2,
      observed_generation: 1,
      phase: 'updating',
      expires_at: composition.expires_at,
      created_at: composition.created_at,
      endpoints: { public: { url: composition.endpoints.public.url } },
      latest_operation: { kind: 'update', status: 'pending' },
    });
    expect(body.desired.inherited).toEqual(['service-a', 'service-d']);
    expect(body.latest_operation.id).not.toBe(composition.latest_operation.id);
  });

  it('returns omitted components to inheritance and {} removes every override', async () => {
    const composition = await create({
      'service-b': { image: image('service-b', 'v1') },
      'service-c': { image: image('service-c', 'v1') },
    });
    await markRolledOut(composition.id);
    const partial = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: { 'service-c': { image: image('service-c', 'v1') } },
    });
    expect(Object.keys(partial.body.overrides)).toEqual(['service-c']);
    expect(partial.body.desired.inherited).toContain('service-b');
    await markRolledOut(composition.id);
    const none = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 2,
      overrides: {},
    });
    expect(none.status).toBe(202);
    expect(none.body.overrides).toEqual({});
    expect(none.body.desired.inherited).toHaveLength(4);
  });

  it('updates a failed composition too', async () => {
    const composition = await create();
    await markRolledOut(composition.id, Compositions.Phase.Failed);
    const { status } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    expect(status).toBe(202);
  });

  it('refuses a stale expected_generation with 409 generation_mismatch', async () => {
    const composition = await create();
    await markRolledOut(composition.id);
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 3,
      overrides: {},
    });
    expect(status).toBe(409);
    expect(body.code).toBe('generation_mismatch');
  });

  it('lets exactly one of two concurrent updates with the same generation through', async () => {
    const composition = await create();
    await markRolledOut(composition.id);
    const answers = await Promise.all(
      ['v7', 'v8'].map((tag) =>
        http.patch(`/v1/compositions/${composition.id}`, {
          expected_generation: 1,
          overrides: { 'service-b': { image: image('service-b', tag) } },
        }),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    const read = await http.get(`/v1/compositions/${composition.id}`);
    expect(read.body.generation).toBe(2);
  });

  it.each([
    [{ ttl: '8h' }, '/ttl'],
    [{ message_isolation: true }, '/message_isolation'],
    [{ name: 'renamed' }, '/name'],
  ])('refuses fields other than the allowed ones (%j) with 422', async (extra, path) => {
    const composition = await create();
    await markRolledOut(composition.id);
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
      ...extra,
    });
    expect(status).toBe(422);
    expect(body.errors).toContainEqual({ path, message: `unknown field "${path.slice(1)}"` });
  });

  it('requires expected_generation', async () => {
    const composition = await create();
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, { overrides: {} });
    expect(status).toBe(422);
    expect(body.errors[0].path).toBe('/expected_generation');
  });

  it('refuses an expired composition with 409 composition_expired', async () => {
    const { body: composition } = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'short',
      overrides: {},
      ttl: '1m',
    });
    await markRolledOut(composition.id);
    clock.advance(61);
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    expect(status).toBe(409);
    expect(body.code).toBe('composition_expired');
    const read = await http.get(`/v1/compositions/${composition.id}`);
    expect(read.body.phase).toBe('expired');
  });

  it('answers 404 for an unknown composition', async () => {
    const { status, body } = await http.patch('/v1/compositions/c-doesnotexist', {
      expected_generation: 1,
      overrides: {},
    });
    expect(status).toBe(404);
    expect(body.code).toBe('not_found');
  });
});

describe('DELETE /v1/compositions/{id}', () => {
  it('is accepted while the create is in flight and supersedes it', async () => {
    const composition = await create();
    const { status, body } = await http.delete(`/v1/compositions/${composition.id}`);
    expect(status).toBe(202);
    expect(body.phase).toBe('destroying');
    expect(body.latest_operation).toMatchObject({ kind: 'destroy', status: 'pending' });
    const superseded = await stack.stores.compositions.getOperation(
      composition.id,
      composition.latest_operation.id,
    );
    expect(superseded?.status).toBe('superseded');
    const record = await stack.stores.compositions.get(composition.id);
    expect(record?.epoch).toBe(2);
    const events = await http.get(`/v1/compositions/${composition.id}/events`);
    expect(events.body.items.map((e: { type: string }) => e.type)).toEqual([
      'destroy_requested',
      'superseded',
      'accepted',
    ]);
    expect(events.body.items[1]).toMatchObject({
      operation_id: composition.latest_operation.id,
      actor: { kind: 'user', subject: 'admin' },
      message: 'create superseded by a destroy',
      data: { superseded_by: body.latest_operation.id },
    });
  });

  it('is repeatable: a second delete answers 202 and starts nothing new', async () => {
    const composition = await create();
    const first = await http.delete(`/v1/compositions/${composition.id}`);
    const second = await http.delete(`/v1/compositions/${composition.id}`);
    expect(second.status).toBe(202);
    expect(second.body.latest_operation.id).toBe(first.body.latest_operation.id);
  });

  it('makes a destroying composition not updatable', async () => {
    const composition = await create();
    await markRolledOut(composition.id);
    await http.delete(`/v1/compositions/${composition.id}`);
    const { status, body } = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    expect(status).toBe(409);
    expect(body.code).toBe('composition_not_updatable');
  });

  it('is accepted for an expired composition', async () => {
    const { body: composition } = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'expiring',
      overrides: {},
      ttl: '1m',
    });
    clock.advance(120);
    const { status, body } = await http.delete(`/v1/compositions/${composition.id}`);
    expect(status).toBe(202);
    expect(body.phase).toBe('destroying');
  });

  it('answers 404 for an unknown composition', async () => {
    expect((await http.delete('/v1/compositions/c-doesnotexist')).status).toBe(404);
  });
});

describe('audit events', () => {
  it('records accepted, update and destroy requests with actor, operation and generation', async () => {
    const composition = await create();
    await markRolledOut(composition.id);
    const updated = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    const destroyed = await http.delete(`/v1/compositions/${composition.id}`);
    const { status, body } = await http.get(`/v1/compositions/${composition.id}/events`);
    expect(status).toBe(200);
    expect(body.items.map((e: { type: string }) => e.type)).toEqual([
      'destroy_requested',
      'superseded',
      'update_requested',
      'accepted',
    ]);
    expect(body.items[3]).toMatchObject({
      actor: { kind: 'user', subject: 'admin' },
      operation_id: composition.latest_operation.id,
      generation: 1,
    });
    expect(body.items[2]).toMatchObject({ operation_id: updated.body.latest_operation.id, generation: 2 });
    expect(body.items[1]).toMatchObject({ operation_id: updated.body.latest_operation.id, generation: 2 });
    expect(body.items[0].operation_id).toBe(destroyed.body.latest_operation.id);
    const page = await http.get(`/v1/compositions/${composition.id}/events?limit=2`);
    expect(page.body.items).toHaveLength(2);
    const rest = await http.get(
      `/v1/compositions/${composition.id}/events?limit=2&after=${page.body.next_cursor}`,
    );
    expect(rest.body.items.map((e: { type: string }) => e.type)).toEqual(['update_requested', 'accepted']);
    expect(rest.body.next_cursor).toBeNull();
  });
});
