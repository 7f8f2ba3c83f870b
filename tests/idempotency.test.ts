import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { completionUpdate } from '@svc/aws';
import { Auth, contentHash } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
const clock = testClock();
let alice: HttpClient;
let bob: HttpClient;
useTestStack({ clock, authMode: Auth.AuthMode.Token }, async (started) => {
  stack = started.stack;
  alice = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('alice')}` });
  bob = httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token('bob')}` });
});

const body = (name = 'idem') => ({ project: 'demo', baseline: 'staging', name, overrides: {} });
const key = (k: string) => ({ 'idempotency-key': k });

async function countNamed(client: HttpClient, name: string): Promise<number> {
  const { body: page } = await client.get('/v1/compositions?limit=200');
  return page.items.filter((c: { name: string }) => c.name === name).length;
}

describe('Idempotency-Key on POST /v1/compositions', () => {
  it('replays the original status and body for the same key and body', async () => {
    const first = await alice.post('/v1/compositions', body('replay'), key('k-replay'));
    expect(first.status).toBe(202);
    const second = await alice.post('/v1/compositions', body('replay'), key('k-replay'));
    expect(second.status).toBe(202);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('location')).toBe(first.headers.get('location'));
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countNamed(alice, 'replay')).toBe(1);
  });

  it('treats a reordered but equal body as the same request', async () => {
    const first = await alice.post('/v1/compositions', body('reorder'), key('k-reorder'));
    const reordered = { overrides: {}, name: 'reorder', baseline: 'staging', project: 'demo' };
    const second = await alice.post('/v1/compositions', reordered, key('k-reorder'));
    expect(second.body.id).toBe(first.body.id);
  });

  it('refuses the same key with a different body with 422', async () => {
    await alice.post('/v1/compositions', body('first'), key('k-mismatch'));
    const other = await alice.post('/v1/compositions', body('second'), key('k-mismatch'));
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(await countNamed(alice, 'second')).toBe(0);
  });

  it('makes exactly one composition from eight concurrent creates with one key', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => alice.post('/v1/compositions', body('race'), key('k-race'))),
    );
    const accepted = answers.filter((a) => a.status === 202);
    const inFlight = answers.filter((a) => a.status === 409);
    expect(accepted.length + inFlight.length).toBe(8);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((a) => a.body.id)).size).toBe(1);
    for (const answer of inFlight) expect(answer.body.code).toBe('idempotency_in_flight');
    expect(await countNamed(alice, 'race')).toBe(1);
    const replay = await alice.post('/v1/compositions', body('race'), key('k-race'));
    expect(replay.body.id).toBe(accepted[0]?.body.id);
  });

  it('scopes keys to the caller', async () => {
    const a = await alice.post('/v1/compositions', body('scoped'), key('k-shared'));
    const b = await bob.post('/v1/compositions', body('scoped'), key('k-shared'));
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.body.owner).toEqual({ kind: 'user', subject: 'token:bob' });
  });

  it('frees the key when the first request was refused, so a corrected retry works', async () => {
    const refused = await alice.post('/v1/compositions', { ...body('fixed'), ttl: '99h' }, key('k-fix'));
    expect(refused.status).toBe(422);
    const corrected = await alice.post('/v1/compositions', body('fixed'), key('k-fix'));
    expect(corrected.status).toBe(202);
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(129)],
  ])('refuses an invalid key (%s) with 400', async (_what, value) => {
    const { status, body: problem } = await alice.post('/v1/compositions', body('badkey'), key(value));
    expect(status).toBe(400);
    expect(problem.code).toBe('invalid_idempotency_key');
  });

  it('accepts a key of exactly 128 printable characters', async () => {
    const { status } = await alice.post(
      '/v1/compositions',
      body('longkey'),
      key(`${'~'.repeat(64)}${' '.repeat(63)}x`),
    );
    expect(status).toBe(202);
  });

  it('replays an answer stored before keys were scoped by operation, hashed with the route', async () => {
    // What the release before stored: the same record (caller and key), the body hashed with its route.
    const sent = body('former');
    const formerHash = contentHash({ method: 'POST', path: '/v1/compositions', body: sent });
    const stored = await alice.post('/v1/compositions', body('former-answer'));
    const taken = await stack.stores.idempotency.acquire({
      caller: 'token:alice',
      key: 'k-former',
      request_hash: formerHash,
      now: clock.now(),
    });
    if (taken.outcome !== 'acquired') throw new Error(`the record was not taken: ${taken.outcome}`);
    await stack.clients.documents.send(
      new UpdateCommand({
        TableName: stack.resources.tableName,
        ...completionUpdate({ lock: taken.lock, response: { status: 202, body: stored.body } }),
      }),
    );

    const replayed = await alice.post('/v1/compositions', sent, key('k-former'));
    expect(replayed.status).toBe(202);
    expect(replayed.body).toEqual(stored.body);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const reused = await alice.post('/v1/compositions', body('other'), key('k-former'));
    expect(reused.body.code).toBe('idempotency_key_reused');

    // One still in flight under the former hash is the same request, not another body.
    const pending = await stack.stores.idempotency.acquire({
      caller: 'token:alice',
      key: 'k-former-pending',
      request_hash: formerHash,
      now: clock.now(),
    });
    expect(pending.outcome).toBe('acquired');
    const inFlight = await alice.post('/v1/compositions', sent, key('k-former-pending'));
    expect(inFlight.body.code).toBe('idempotency_in_flight');
    expect(await countNamed(alice, 'former')).toBe(0);
  });

  it('forgets answers after the 24 h retention, on read and by the sweep', async () => {
    const first = await alice.post('/v1/compositions', body('retained'), key('k-retention'));
    clock.advance(24 * 3600 + 1);
    const later = await alice.post('/v1/compositions', body('retained'), key('k-retention'));
    expect(later.status).toBe(202);
    expect(later.body.id).not.toBe(first.body.id);

    clock.advance(24 * 3600 + 1);
    const swept = await stack.stores.idempotency.sweep(clock.now(), 500);
    expect(swept).toBeGreaterThanOrEqual(1);
    expect(await stack.stores.idempotency.sweep(clock.now(), 500)).toBe(0);
  });
});
