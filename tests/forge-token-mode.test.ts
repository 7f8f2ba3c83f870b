/**
 * The local stack in token mode: the stand-in CI publishes each pushed commit with a publisher
 * machine token of its own, and the pull request's preview follows as in dev mode. Its previews
 * take no place in the project's live-composition quota, and give none back.
 */
import { Auth } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { expect, it } from 'vitest';
import { waitForPhase } from './support/compositions.ts';

let stack: Stack;
let admin: HttpClient;
const quota = 2;
useTestStack(
  {
    authMode: Auth.AuthMode.Token,
    forge: { writeIntervalMs: 0 },
    auth: { settings: { limits: { live_compositions_per_project: quota } } },
  },
  async (started) => {
    stack = started.stack;
    admin = httpClient(stack.apiUrl, {
      authorization: `Bearer ${await started.token('admin', Auth.Role.Admin)}`,
    });
  },
);

type Forge = NonNullable<Stack['forge']>;
interface Preview {
  state: string;
  composition_id: string | null;
  pull_request: { number: number };
}

async function previewOf(number: number, done: (p: Preview) => boolean): Promise<Preview> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await admin.get('/v1/forge/previews?project=demo');
    const preview = body.items.find((p: Preview) => p.pull_request.number === number);
    if (preview && done(preview)) return preview;
    if (Date.now() > deadline) throw new Error(`preview of #${number}: ${JSON.stringify(preview)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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

it('a pull-request preview takes no quota place, and its destroy gives none back', async () => {
  const forge = stack.forge as Forge;
  const { pullRequest } = await forge.open({
    repository: 'demo-org/service-b',
    head: 'quota',
    labels: ['preview'],
  });
  const number = pullRequest?.number as number;
  const { composition_id: id } = await previewOf(number, (p) => p.state === 'ready');
  await forge.close({ repository: 'demo-org/service-b', number });
  await waitForPhase(admin, id as string, ['destroyed']);

  // Had the destroy given a place back that the create never took, a third create would pass.
  const create = (name: string) =>
    admin.post('/v1/compositions', { project: 'demo', baseline: 'staging', name, overrides: {} });
  const statuses = [];
  for (const name of ['quota-1', 'quota-2', 'quota-3']) statuses.push((await create(name)).status);
  expect(statuses).toEqual([202, 202, 429]);
});
