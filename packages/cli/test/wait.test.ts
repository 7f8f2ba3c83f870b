/**
 * `svc composition wait` polls GET …/status while the real worker rolls the composition out into
 * the local cluster: ready → exit 0, failed → exit 1 naming the blockers, a rollout kept in
 * progress by a `-slow` image → exit 3 at the timeout. Each prints the last status on stdout.
 *
 * The worker fails a rollout half a second into a failing image here, not after the default 20 s
 * (tests/failure-grace.test.ts is about the grace; packages/worker/src/deps.test.ts checks that the
 * default grace ends within a default wait).
 */
import { createServer, type ServerResponse } from 'node:http';
import { Compositions } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { useTestStack } from '@svc/local/testing';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, recordingServer, svc } from './helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt, workerSettings: { failureGraceMs: 500 } }, (started) => {
  stack = started.stack;
});

/** Creates a composition overriding service-b with `override`; its rollout starts at once. */
async function create(override = image('service-b')): Promise<string> {
  const result = await svc(['composition', 'create', '--name', 'w', '--image', override], {
    apiUrl: stack.apiUrl,
  });
  expect(result.code, result.stderr).toBe(0);
  return result.json().id;
}

describe('svc composition wait', () => {
  it('times out with exit 3 while the rollout is still in progress, printing the last status', async () => {
    const id = await create(image('service-b', '2.0.0-slow'));
    const started = Date.now();
    const result = await svc(['composition', 'wait', id, '--timeout', '1s'], { apiUrl: stack.apiUrl });
    const elapsed = Date.now() - started;
    expect(result.code, result.stderr).toBe(3);
    expect(v.parse(Compositions.CompositionStatusView, result.json())).toMatchObject({
      id,
      phase: 'provisioning',
      observed_generation: 0,
      latest_operation: { kind: 'create', status: 'running' },
    });
    expect(result.problem()).toMatchObject({ code: 'wait_timeout', status: null });
    expect(result.problem().detail).toContain('still provisioning after 1s');
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    expect(elapsed).toBeLessThan(5000);
  });

  it('returns as soon as the worker has rolled the composition out: exit 0 with its status', async () => {
    const id = await create();
    const result = await svc(['composition', 'wait', id, '--timeout', '20s'], { apiUrl: stack.apiUrl });
    const returned = Date.now();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(v.parse(Compositions.CompositionStatusView, result.json())).toMatchObject({
      id,
      phase: 'ready',
      generation: 1,
      observed_generation: 1,
      latest_operation: { kind: 'create', status: 'succeeded' },
    });
    const events = await svc(['composition', 'events', id, '--limit', '1'], { apiUrl: stack.apiUrl });
    const [readyEvent] = events.json().items;
    expect(readyEvent.type).toBe('ready');
    // Polls back off to one a second at most, so the wait ends within about a second of the rollout.
    expect(returned - Date.parse(readyEvent.at)).toBeLessThan(2000);
  });

  it.each([
    ['missing', 'image_pull_failed'],
    ['crash', 'crash_loop'],
  ])(
    'ends with exit 1 when an image that is %s fails the rollout (%s), naming the blocker, within the default timeout',
    async (kind, code) => {
      const bad = image('service-b', `9.9.9-${kind}`);
      const id = await create(bad);
      const result = await svc(['composition', 'wait', id], { apiUrl: stack.apiUrl });
      expect(result.code, result.stderr).toBe(1);
      expect(v.parse(Compositions.CompositionStatusView, result.json())).toMatchObject({
        id,
        phase: 'failed',
        observed_generation: 0,
        latest_operation: { kind: 'create', status: 'failed' },
      });
      const problem = result.problem();
      expect(problem).toMatchObject({
        code: 'composition_failed',
        status: null,
        errors: [{ path: 'service-b', message: expect.stringContaining(bad) }],
      });
      expect(problem.detail).toContain(`svc composition diagnosis ${id}`);
      expect(problem.detail).toContain(problem.errors[0].message);
      const diagnosis = await svc(['composition', 'diagnosis', id], { apiUrl: stack.apiUrl });
      expect(diagnosis.json()).toMatchObject({
        state: 'failed',
        blockers: [{ code, component: 'service-b', message: problem.errors[0].message }],
      });
    },
  );

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
    let firstPollAt = 0;
    const server = createServer((_request, response) => {
      polls += 1;
      if (polls === 1) firstPollAt = Date.now();
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
      // A hanging poll left to the request timeout would end the wait 30 s in; counted from the
      // first poll, so a loaded machine's slow process start does not count against the bound.
      const result = await svc(['composition', 'wait', 'c-x', '--timeout', '1s'], {
        apiUrl: url,
        env: { SVC_HTTP_TIMEOUT: '30s' },
      });
      expect(result.code).toBe(3);
      expect(result.json()).toMatchObject({ phase: 'provisioning' });
      expect(result.problem()).toMatchObject({ code: 'wait_timeout' });
      expect(Date.now() - firstPollAt).toBeLessThan(5000);
    } finally {
      for (const response of hanging) response.destroy();
      server.close();
    }
  });
});
