/**
 * The local stack in token mode: the stand-in CI publishes each pushed commit with a publisher
 * machine token of its own, and the pull request's preview follows as in dev mode.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { expect, it } from 'vitest';

let stack: Stack;
let admin: HttpClient;
useTestStack({ authMode: Auth.AuthMode.Token, forge: { writeIntervalMs: 0 } }, async (started) => {
  stack = started.stack;
  admin = httpClient(stack.apiUrl, {
    authorization: `Bearer ${await started.token('admin', Auth.Role.Admin)}`,
  });
});

it('a labelled pull request gets a ready preview from the build the local CI published with its own token', async () => {
  const { pullRequest } = await (stack.forge as NonNullable<Stack['forge']>).open({
    repository: 'demo-org/service-b',
    head: 'token-mode',
    labels: ['preview'],
  });
  const deadline = Date.now() + 20_000;
  let state: string | undefined;
  while (state !== 'ready' && Date.now() < deadline) {
    const { body } = await admin.get('/v1/forge/previews?project=demo');
    state = body.items.find(
      (p: { pull_request: { number: number } }) => p.pull_request.number === pullRequest?.number,
    )?.state;
    if (state !== 'ready') await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(state).toBe('ready');
  const { body } = await admin.get('/v1/audit-events?project=demo&limit=50');
  const published = body.items.filter((e: { action: string }) => e.action === 'build.published');
  expect(published.map((e: { actor: { subject: string } }) => e.actor.subject)).toEqual(['token:local-ci']);
});
