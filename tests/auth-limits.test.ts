/**
 * Limits that must hold on many API instances at once, so they are counted in the table: changes
 * per identity per minute (429 rate_limited with Retry-After) and live compositions per project
 * (429 quota_exceeded, exact under concurrent creates, given back when a destroy finishes).
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, testClock, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { waitForPhase } from './support/compositions.ts';

let stack: Stack;
let admin: HttpClient;
let busy: HttpClient;
let calm: HttpClient;

// Starting on a minute boundary keeps every hit of a test in one fixed window.
useTestStack(
  {
    authMode: Auth.AuthMode.Token,
    clock: testClock(new Date('2030-01-01T00:00:00Z')),
    auth: { settings: { limits: { mutations_per_minute: 8, live_compositions_per_project: 3 } } },
  },
  async (started) => {
    stack = started.stack;
    const client = async (name: string) =>
      httpClient(stack.apiUrl, { authorization: `Bearer ${await started.token(name, Auth.Role.Admin)}` });
    admin = await client('quota-admin');
    busy = await client('busy');
    calm = await client('calm');
  },
);

const create = (http: HttpClient, name: string) =>
  http.post('/v1/compositions', { project: 'demo', baseline: 'staging', name, overrides: {} });

describe('rate limits', () => {
  it('refuses an identity its ninth change in a minute with 429 and Retry-After; others go on', async () => {
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<HttpClient['post']>> | undefined;
    for (let i = 0; i < 9; i++) {
      const answer = await busy.post('/v1/catalog/validate', { projects: [] });
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 429]);
    expect(refused?.body.code).toBe('rate_limited');
    const retryAfter = Number(refused?.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await busy.get('/v1/projects')).status).toBe(200);
    expect((await calm.post('/v1/catalog/validate', { projects: [] })).status).toBe(200);
  });
});

describe('the live-composition quota', () => {
  it('admits exactly the quota under concurrent creates, and gives a place back when a destroy finishes', async () => {
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => create(admin, `quota-${n}`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 202, 202, 429, 429]);
    const refused = answers.find((a) => a.status === 429);
    expect(refused?.body.code).toBe('quota_exceeded');
    expect(refused?.body.detail).toContain('"demo"');

    const live = answers.filter((a) => a.status === 202).map((a) => a.body.id as string);
    // The cluster's deletes are held a moment, so the destroy is surely unfinished at the next create.
    await fetch(`${stack.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'latency', ms: 2000, match: { method: 'DELETE' } }),
    });
    try {
      expect((await admin.delete(`/v1/compositions/${live[0]}`)).status).toBe(202);
      expect((await create(calm, 'quota-too-early')).status).toBe(429);
    } finally {
      await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
    }
    await waitForPhase(admin, live[0] as string, ['destroyed']);
    expect((await create(calm, 'quota-after')).status).toBe(202);
  });
});
