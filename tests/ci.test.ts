/**
 * docs/ci.md run for real: the pipeline's steps through the `svc` executable against the local
 * stack (publish the build, create with an idempotency key, wait, test the URL, record the result,
 * destroy), and the `svc pr-preview` commands against a pull request of the local forge.
 */
import { createHash } from 'node:crypto';
import { Verification } from '@svc/core';
import type { Stack } from '@svc/local';
import { useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt, forge: { writeIntervalMs: 0 } }, (started) => {
  stack = started.stack;
});

/** One `svc` step of the pipeline; it must succeed with nothing on stderr. */
async function step(...args: string[]) {
  const result = await svc(args, { apiUrl: stack.apiUrl });
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json();
}

describe('docs/ci.md', () => {
  it('publish → create (idempotent) → wait → test the URL → record the result → verification → destroy', async () => {
    const commit = createHash('sha1').update('ci-commit').digest('hex');
    const image = `registry.example.com/demo/service-b:ci@sha256:${createHash('sha256').update(commit).digest('hex')}`;
    const build = await step(
      'source',
      'publish',
      '--project',
      'demo',
      '--component',
      'service-b',
      '--repository',
      'acme/service-b',
      '--commit',
      commit,
      '--ref',
      'refs/heads/main',
      '--image',
      image,
    );
    expect(build.id).toMatch(/^b-/);

    const create = [
      'composition',
      'create',
      '--project',
      'demo',
      '--name',
      'ci-42',
      '--build',
      `service-b=${build.id}`,
      '--ttl',
      '2h',
      '--idempotency-key',
      'ci-acme-service-b-42-1',
    ];
    const created = await step(...create);
    expect((await step(...create)).id).toBe(created.id);

    await step('composition', 'wait', created.id, '--timeout', '60s');
    const { endpoints } = await step('composition', 'endpoints', created.id);
    const response = await gatewayFetch(stack.gatewayUrl, endpoints.public.url);
    const hops = Verification.hopsOf(await response.json()) ?? [];
    const passed = response.status === 200 && hops.find((h) => h.component === 'service-b')?.image === image;
    expect(passed).toBe(true);

    const { generation } = await step('composition', 'get', created.id);
    const check = await step(
      'composition',
      'check',
      created.id,
      '--generation',
      String(generation),
      '--status',
      passed ? 'passed' : 'failed',
      '--message',
      `e2e tests of ${commit}`,
    );
    expect(check).toMatchObject({
      kind: 'test',
      status: 'passed',
      freshness: 'fresh',
      target: endpoints.public.url,
    });
    const verification = await step('composition', 'verification', created.id);
    expect(verification.items.map((c: { id: string }) => c.id)).toContain(check.id);

    expect((await step('composition', 'destroy', created.id)).phase).toBe('destroying');
  });
});

describe('svc pr-preview', () => {
  it('policy --file, list, get, stop and restart', async () => {
    const forge = stack.forge as LocalForge;
    const policyFile = JSON.stringify({
      project: 'demo',
      repository: 'demo-org/service-b',
      enabled: true,
      trigger_label: 'deploy-preview',
      baseline: 'staging',
      ttl: '1h',
      components: ['service-b'],
    });
    const policy = await svc(['pr-preview', 'policy', '--file', '-'], {
      apiUrl: stack.apiUrl,
      stdin: policyFile,
    });
    expect(policy.code, policy.stderr).toBe(0);
    expect(policy.json()).toMatchObject({ trigger_label: 'deploy-preview', ttl: '1h', revision: 2 });

    // The local CI publishes the build of the pushed commit, as a pipeline would.
    const { pullRequest } = await forge.open({
      repository: 'demo-org/service-b',
      head: 'cli',
      labels: ['deploy-preview'],
    });
    const deadline = Date.now() + 20_000;
    let preview: { id: string; state: string } | undefined;
    while (preview?.state !== 'ready' && Date.now() < deadline) {
      const page = await step('pr-preview', 'list', '--project', 'demo', '--limit', '10');
      preview = page.items.find(
        (p: { pull_request: { number: number } }) => p.pull_request.number === pullRequest?.number,
      );
      if (preview?.state !== 'ready') await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(preview?.state).toBe('ready');
    const id = preview?.id as string;
    expect((await step('pr-preview', 'get', id)).pull_request.number).toBe(pullRequest?.number);
    expect((await step('pr-preview', 'stop', id)).automation).toBe('suppressed');
    expect((await step('pr-preview', 'restart', id)).automation).toBe('active');

    await forge.close({ repository: 'demo-org/service-b', number: pullRequest?.number as number });
    const refused = await svc(['pr-preview', 'restart', id], { apiUrl: stack.apiUrl });
    expect(refused.code).toBe(4);
    expect(refused.problem()).toMatchObject({ code: 'preview_not_restartable' });
  });
});
