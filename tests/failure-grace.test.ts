/**
 * The failure grace counts from the moment the fork's pod turned unhealthy, as the pod reports it,
 * not from when the worker first looked (after its first bounded watch): a pull failure fails the
 * composition about one grace after the pod went bad (issue 12). The watch bound here is four
 * times the grace, so grace + watch bound would be unmistakable.
 */
import { Cluster } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

const failureGraceMs = 2_000;
const watchBoundMs = 8_000;

let stack: Stack;
let http: HttpClient;
useTestStack({ workerSettings: { failureGraceMs, watchBoundMs } }, (started) => {
  ({ stack, http } = started);
});

describe('the failure grace', () => {
  it('fails a pull failure about one grace after its pod turned unhealthy', async () => {
    const bad = image('service-d', '9.9.9-missing');
    const created = await createComposition(http, { 'service-d': { image: bad } });
    const failed = await waitForPhase(http, created.id, ['failed', 'ready'], 30_000);
    expect(failed.phase).toBe('failed');
    expect(failed.observed.blockers).toEqual([
      { code: 'image_pull_failed', message: expect.stringContaining(bad), component: 'service-d' },
    ]);

    const [pod] = await stack.cluster.listPods('staging', Cluster.compositionSelector(created.id));
    const notReady = pod?.status?.conditions?.find((c) => c.type === 'ContainersReady');
    expect(notReady?.status).toBe('False');
    const events = (await http.get(`/v1/compositions/${created.id}/events?limit=100`)).body.items;
    const failedAt = Date.parse(events.find((e: { type: string }) => e.type === 'failed').at);
    // Condition times are whole seconds (up to 1 s early); the worker notices within ~50 ms plus
    // what a busy machine adds. Counting from the first watch's end would be watchBoundMs + grace.
    const unhealthyFor = failedAt - Date.parse(notReady?.lastTransitionTime ?? '');
    expect(unhealthyFor).toBeGreaterThanOrEqual(failureGraceMs - 1_000);
    expect(unhealthyFor).toBeLessThan(failureGraceMs + 2_500);
    expect(failedAt - Date.parse(created.created_at)).toBeLessThan(watchBoundMs);
  });
});
