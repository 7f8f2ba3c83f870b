import { Compositions, Rollout } from '@svc/core';
import { describe, expect, it } from 'vitest';
import { defaultWorkerSettings } from './deps.ts';

describe('the worker’s default timings', () => {
  it('fail a rollout after the rollout’s failure grace of 20 s', () => {
    expect(Rollout.defaultFailureGraceMs).toBe(20_000);
    expect(defaultWorkerSettings.failureGraceMs).toBe(Rollout.defaultFailureGraceMs);
  });

  it('record a failing image before a default `svc composition wait` gives up on it', () => {
    // The failure is recorded at most a recheck after the grace ends, and a waiting client polls
    // at most 2 s apart: both within the default wait, so the wait ends "failed", not "timed out".
    const clientPollMs = 2_000;
    const failureSeenMs =
      defaultWorkerSettings.failureGraceMs + defaultWorkerSettings.recheckDelaySeconds * 1000 + clientPollMs;
    expect(failureSeenMs).toBeLessThan(Compositions.waitLimits.defaultSeconds * 1000);
  });
});
