/**
 * `svc composition wait` polls GET …/status. No worker moves compositions on yet, so the test moves
 * them itself through the store: ready → exit 0, failed → exit 1, still created → exit 3 at the
 * timeout. Each prints the last status on stdout.
 */
import { createServer, type ServerResponse } from 'node:http';
import { CompositionStatusView, type Phase } from '@svc/core';
import type { Stack } from '@svc/local';
import { startTestStack } from '@svc/local/testing';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc } from './helpers.ts';

let stack: Stack;
beforeAll(async () => {
  [stack] = await Promise.all([startTestStack(), ensureBuilt()]);
});
afterAll(() => stack.stop());

async function create(): Promise<string> {
  const result = await svc(['composition', 'create', '--name', 'w', '--inherit-all'], {
    apiUrl: stack.apiUrl,
  });
  expect(result.code, result.stderr).toBe(0);
  return result.json().id;
}

async function setPhase(id: string, phase: Exclude<Phase, 'expired'>): Promise<void> {
  const record = await stack.stores.compositions.get(id);
  if (!record) throw new Error(`no composition ${id}`);
  const ok = await stack.stores.compositions.replace({
    composition: {
      ...record,
      phase,
      active_operation: null,
      latest_operation: { ...record.latest_operation, status: phase === 'ready' ? 'succeeded' : 'failed' },
      lock_version: record.lock_version + 1,
    },
    expected_lock_version: record.lock_version,
    events: [],
  });
  if (!ok) throw new Error('changed meanwhile');
}

describe('svc composition wait', () => {
  it('times out with exit 3 while the composition stays created, printing the last status', async () => {
    const id = await create();
    const started = Date.now();
    const result = await svc(['composition', 'wait', id, '--timeout', '2s'], { apiUrl: stack.apiUrl });
    const elapsed = Date.now() - started;
    expect(result.code).toBe(3);
    expect(v.parse(CompositionStatusView, result.json())).toMatchObject({ id, phase: 'created' });
    expect(result.problem()).toMatchObject({ code: 'wait_timeout', status: null });
    expect(result.problem().detail).toContain('still created after 2s');
    expect(elapsed).toBeGreaterThanOrEqual(2000);
    expect(elapsed).toBeLessThan(6000);
  });

  it('returns as soon as the composition is ready: exit 0 with its status', async () => {
    const id = await create();
    const waiting = svc(['composition', 'wait', id, '--timeout', '20s'], { apiUrl: stack.apiUrl });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await setPhase(id, 'ready');
    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.json()).toMatchObject({ id, phase: 'ready' });
  });

  it('ends at once with exit 1 when the composition failed, printing the last status', async () => {
    const id = await create();
    await setPhase(id, 'failed');
    const result = await svc(['composition', 'wait', id], { apiUrl: stack.apiUrl });
    expect(result.code).toBe(1);
    expect(result.json()).toMatchObject({ id, phase: 'failed' });
    expect(result.problem()).toMatchObject({ code: 'composition_failed' });
    expect(result.problem().detail).toContain(`svc composition diagnosis ${id}`);
  });

  it('a failed wait names the blockers the diagnosis recorded', async () => {
    const api = await recordingServer((request) =>
      request.url.endsWith('/diagnosis')
        ? {
            status: 200,
            body: {
              state: 'failed',
              blockers: [
                { code: 'image_pull_failed', message: 'image x cannot be pulled', component: 'service-b' },
              ],
            },
          }
        : {
            status: 200,
            body: { id: 'c-x', phase: 'failed', latest_operation: { kind: 'create', status: 'failed' } },
          },
    );
    try {
      const result = await svc(['composition', 'wait', 'c-x'], { apiUrl: api.url });
      expect(result.code).toBe(1);
      expect(result.problem()).toMatchObject({
        code: 'composition_failed',
        errors: [{ path: 'service-b', message: 'image x cannot be pulled' }],
      });
      expect(result.problem().detail).toContain(': image x cannot be pulled;');
    } finally {
      await api.close();
    }
  });

  it('an unknown composition is the 404 problem at once', async () => {
    const result = await svc(['composition', 'wait', 'c-unknown'], { apiUrl: stack.apiUrl });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.problem()).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('defaults to a 30s timeout, polling GET …/status', async () => {
    let polls = 0;
    const api = await recordingServer((request) => {
      polls += 1;
      const phase = polls >= 3 ? 'ready' : 'provisioning';
      return {
        status: 200,
        body: { id: 'c-x', phase, url: request.url },
      };
    });
    try {
      const result = await svc(['composition', 'wait', 'c-x'], { apiUrl: api.url });
      expect(result.code, result.stderr).toBe(0);
      expect(new Set(api.requests.map((r) => `${r.method} ${r.url}`))).toEqual(
        new Set(['GET /v1/compositions/c-x/status']),
      );
      expect(api.requests).toHaveLength(3);
    } finally {
      await api.close();
    }
  });

  it('a poll that hangs does not stretch the wait past --timeout', async () => {
    const hanging: ServerResponse[] = [];
    let polls = 0;
    const server = createServer((_request, response) => {
      polls += 1;
      if (polls > 1) {
        hanging.push(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ id: 'c-x', phase: 'provisioning' }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const started = Date.now();
      const result = await svc(['composition', 'wait', 'c-x', '--timeout', '2s'], { apiUrl: url });
      expect(result.code).toBe(3);
      expect(result.json()).toMatchObject({ phase: 'provisioning' });
      expect(result.problem()).toMatchObject({ code: 'wait_timeout' });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      for (const response of hanging) response.destroy();
      server.close();
    }
  });
});
