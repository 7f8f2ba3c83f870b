/**
 * With the worker's own failure grace and recheck delay (not the tests' short ones), a failing image
 * ends a `svc composition wait` without --timeout as failed — exit 1 naming the blocker — never as
 * timed out by chance: the default wait outlasts the grace.
 */
import { Compositions, Rollout } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { useTestStack } from '@svc/local/testing';
import { defaultWorkerSettings } from '@svc/worker';
import { expect, it } from 'vitest';
import { ensureBuilt, svc } from './helpers.ts';

let stack: Stack;
useTestStack(
  {
    alongside: ensureBuilt,
    workerSettings: {
      failureGraceMs: defaultWorkerSettings.failureGraceMs,
      recheckDelaySeconds: defaultWorkerSettings.recheckDelaySeconds,
    },
  },
  (started) => {
    stack = started.stack;
  },
);

it('a default wait on an image that cannot be pulled ends failed, with its blocker, before its timeout', async () => {
  expect(defaultWorkerSettings.failureGraceMs).toBe(Rollout.defaultFailureGraceMs);
  const missing = image('service-b', '2.0.0-missing');
  const created = await svc(
    ['composition', 'create', '--name', 'w', '--component', 'service-b', '--image', missing],
    {
      apiUrl: stack.apiUrl,
    },
  );
  expect(created.code, created.stderr).toBe(0);
  const started = Date.now();
  const result = await svc(['composition', 'wait', created.json().id], { apiUrl: stack.apiUrl });
  const elapsed = Date.now() - started;
  expect(result.code, result.stderr).toBe(1);
  expect(result.problem()).toMatchObject({ code: 'composition_failed' });
  expect(result.problem().detail).toContain(missing);
  expect(result.json()).toMatchObject({ phase: 'failed' });
  expect(elapsed).toBeGreaterThan(Rollout.defaultFailureGraceMs - 2_000);
  expect(elapsed).toBeLessThan(Compositions.waitLimits.defaultSeconds * 1000);
}, 60_000);
