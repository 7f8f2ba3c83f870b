/**
 * docs/ci.md run for real against the local stack in token mode, with the machine token the page
 * tells a pipeline to use: the packaged step (the composite GitHub Action, its destroy companion and
 * the GitLab template, each run from its own file), the same steps through the `svc` executable,
 * and the `svc pr-preview` commands against a pull request of the local forge.
 */

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Auth, Checks } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { actionBundle, actionScript } from '../packages/client/scripts/build.ts';
import { repoRoot, runAction, runGitlabJob } from './support/ci-runners.ts';

let stack: Stack;
let admin: HttpClient;
let adminToken: string;
/** The grants docs/ci.md gives a pipeline's token: publisher for the repository, developer on the project. */
let ciToken: string;
useTestStack(
  { authMode: Auth.AuthMode.Token, alongside: ensureBuilt, forge: { writeIntervalMs: 0 } },
  async (started) => {
    stack = started.stack;
    adminToken = await started.token('admin', Auth.Role.Admin);
    admin = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
    ciToken = await started.token('ci-service-b', [
      { role: 'publisher', project: 'demo', repository: 'acme/service-b' },
      { role: 'developer', project: 'demo', repository: null },
    ]);
  },
);

/** One `svc` step of the pipeline with the pipeline's token; it must succeed. */
async function step(...args: string[]) {
  const result = await svc(args, { apiUrl: stack.apiUrl, env: { SVC_API_TOKEN: ciToken } });
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.json();
}

const action = join(repoRoot, '.github', 'actions', 'preview');
const gitlabTemplate = join(repoRoot, '.gitlab', 'preview.gitlab-ci.yml');

function digestImage(seed: string) {
  const commit = createHash('sha1').update(seed).digest('hex');
  return {
    commit,
    image: `registry.example.com/demo/service-b:ci@sha256:${createHash('sha256').update(commit).digest('hex')}`,
  };
}

/** What GitHub fills in for one run of a workflow in acme/service-b. */
function githubRun(commit: string, attempt = '1') {
  return {
    repository: 'acme/service-b',
    sha: commit,
    ref: 'refs/heads/feature',
    run_id: '9001',
    run_attempt: attempt,
    run_number: '17',
  };
}

/** The image serving service-b's hop behind a preview URL. */
async function servedImage(url: string): Promise<string | undefined> {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const hops = Checks.hopsOf(await response.json()) ?? [];
  return hops.find((h) => h.component === 'service-b')?.image;
}

async function liveCount(): Promise<number> {
  return (await admin.get('/v1/compositions?limit=200')).body.items.length;
}

describe('the packaged step', () => {
  it('the script the action and the template run is preview.ts bundled with @svc/client, as the build makes it', async () => {
    const committed = readFileSync(actionScript, 'utf8');
    expect(committed, 'run npm run build:client and commit preview.mjs').toBe(await actionBundle());
    const imports = [...committed.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]);
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((name) => !name?.startsWith('node:'))).toEqual([]);
  });

  it("GitHub Action: publishes the build, creates the preview under the run's key, waits, reports the URL; destroy removes it", async () => {
    const { commit, image } = digestImage('action-commit');
    const inputs = {
      'api-url': stack.apiUrl,
      token: ciToken,
      project: 'demo',
      component: 'service-b',
      image,
    };
    const run = await runAction(action, inputs, githubRun(commit));
    expect(run.code, run.stderr).toBe(0);
    const id = run.outputs['composition-id'] as string;
    const url = run.outputs['preview-url'] as string;
    expect(id).toMatch(/^c-/);
    expect(run.outputs['build-id']).toMatch(/^b-/);
    expect(await servedImage(url)).toBe(image);
    expect(run.summary).toContain(url);
    expect(run.summary).toContain(id);
    const composition = (await admin.get(`/v1/compositions/${id}`)).body;
    expect(composition).toMatchObject({ phase: 'ready', name: 'ci-17' });

    // The step retried in the same run gets the same preview; a re-run (attempt 2) a new one.
    const retried = await runAction(action, inputs, githubRun(commit));
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.outputs['composition-id']).toBe(id);
    const rerun = await runAction(action, inputs, githubRun(commit, '2'));
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.outputs['composition-id']).not.toBe(id);

    const destroyInputs = { 'api-url': stack.apiUrl, token: ciToken };
    for (const target of [id, rerun.outputs['composition-id'] as string]) {
      const destroyed = await runAction(
        join(action, 'destroy'),
        { ...destroyInputs, 'composition-id': target },
        githubRun(commit),
      );
      expect(destroyed.code, destroyed.stderr).toBe(0);
      expect((await admin.get(`/v1/compositions/${target}/status`)).body.phase).toMatch(/^destroy/);
    }
    const again = await runAction(
      join(action, 'destroy'),
      { ...destroyInputs, 'composition-id': id },
      githubRun(commit),
    );
    expect(again.code, again.stderr).toBe(0);
  });

  it('GitHub Action: a bad input is named and nothing is created; a refused token says so', async () => {
    const { commit, image } = digestImage('bad-input');
    const before = await liveCount();
    const base = { 'api-url': stack.apiUrl, token: ciToken, project: 'demo', component: 'service-b' };
    const both = await runAction(action, { ...base, image, 'build-id': 'b-whatever' }, githubRun(commit));
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('inputs image and build-id exclude each other');
    const neither = await runAction(action, base, githubRun(commit));
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('input image');
    const wait = await runAction(action, { ...base, image, 'wait-timeout': 'soon' }, githubRun(commit));
    expect(wait.code).toBe(2);
    expect(wait.stderr).toContain('input wait-timeout');
    const otherRepository = await runAction(
      action,
      { ...base, image },
      { ...githubRun(commit), repository: 'acme/other' },
    );
    expect(otherRepository.stderr).toContain('publishing the build refused: 403 forbidden');
    expect(otherRepository.code).toBe(8);
    const issued = (
      await admin.post('/v1/tokens', { name: 'ci-revoked', grants: [{ role: 'developer', project: 'demo' }] })
    ).body;
    expect((await admin.delete(`/v1/tokens/${issued.id}`)).status).toBe(200);
    const revoked = await runAction(action, { ...base, token: issued.token, image }, githubRun(commit));
    expect(revoked.stderr).toContain(
      'publishing the build refused: 401 unauthenticated: Send Authorization: Bearer <token> (svc reads it from SVC_API_TOKEN); this installation has no sign-in. This machine token was revoked; ask an Admin for a new one (svc admin tokens issue).',
    );
    expect(revoked.code).toBe(5);
    expect(await liveCount()).toBe(before);
  });

  it('GitLab template: the same step with a published build, its URL handed on in a dotenv report; destroy removes it', async () => {
    const { commit, image } = digestImage('gitlab-commit');
    const published = await admin.post('/v1/projects/demo/builds', {
      component: 'service-b',
      repository: 'acme/service-b',
      commit_sha: commit,
      ref: 'main',
      image,
    });
    const gitlab = {
      SVC_API_URL: stack.apiUrl,
      SVC_API_TOKEN: ciToken,
      // The step's script from this checkout: the template clones it only where it is missing.
      SVC_CI_DIR: repoRoot,
      CI_PROJECT_PATH: 'acme/service-b',
      CI_COMMIT_SHA: commit,
      CI_COMMIT_REF_NAME: 'feature',
      CI_PIPELINE_ID: '555',
      CI_PIPELINE_IID: '12',
      CI_JOB_ID: '777',
    };
    const job = await runGitlabJob(gitlabTemplate, '.svc-preview', {
      ...gitlab,
      SVC_PROJECT: 'demo',
      SVC_COMPONENT: 'service-b',
      SVC_BUILD_ID: published.body.id,
    });
    expect(job.code, job.stderr).toBe(0);
    expect(job.dotenv.SVC_BUILD_ID).toBe(published.body.id);
    expect(await servedImage(job.dotenv.SVC_PREVIEW_URL as string)).toBe(image);
    expect((await admin.get(`/v1/compositions/${job.dotenv.SVC_COMPOSITION_ID}`)).body.name).toBe('ci-12');

    const destroy = await runGitlabJob(gitlabTemplate, '.svc-preview-destroy', { ...gitlab, ...job.dotenv });
    expect(destroy.code, destroy.stderr).toBe(0);
    expect((await admin.get(`/v1/compositions/${job.dotenv.SVC_COMPOSITION_ID}/status`)).body.phase).toMatch(
      /^destroy/,
    );
  });
});

describe('the GitLab template, fetching the step at SVC_CI_REF', () => {
  /** A repository holding the step's script at one commit, tagged as a release is. */
  function releaseRepository() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ci-repository-'));
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=ci', '-c', 'user.email=ci@example.com', ...args], {
        cwd: dir,
        encoding: 'utf8',
      }).trim();
    git('init', '--quiet');
    mkdirSync(join(dir, '.github', 'actions', 'preview'), { recursive: true });
    copyFileSync(actionScript, join(dir, '.github', 'actions', 'preview', 'preview.mjs'));
    git('add', '-A');
    git('commit', '--quiet', '-m', 'release');
    git('tag', 'v1.0.0');
    const sha = git('rev-parse', 'HEAD');
    // A later commit, so the tag and the SHA name something other than the branch's head.
    writeFileSync(join(dir, 'later.txt'), 'later');
    git('add', '-A');
    git('commit', '--quiet', '-m', 'later');
    return { dir, sha };
  }

  it.each(['commit SHA', 'release tag'])('runs the script of the %s it was given', async (kind) => {
    const repository = releaseRepository();
    const job = await runGitlabJob(gitlabTemplate, '.svc-preview-destroy', {
      SVC_API_URL: stack.apiUrl,
      SVC_API_TOKEN: ciToken,
      SVC_CI_REPOSITORY: repository.dir,
      SVC_CI_REF: kind === 'commit SHA' ? repository.sha : 'v1.0.0',
      SVC_CI_DIR: join(mkdtempSync(join(tmpdir(), 'svc-ci-')), 'checkout'),
      SVC_COMPOSITION_ID: 'c-never-created',
    });
    expect(job.code, job.stderr).toBe(0);
    expect(JSON.parse(job.stdout)).toEqual({ composition_id: 'c-never-created', phase: 'gone' });
  });
});

describe('docs/ci.md, step by step with svc', () => {
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
    const hops = Checks.hopsOf(await response.json()) ?? [];
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
      env: { SVC_API_TOKEN: adminToken },
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
    const refused = await svc(['pr-preview', 'restart', id], {
      apiUrl: stack.apiUrl,
      env: { SVC_API_TOKEN: adminToken },
    });
    expect(refused.code).toBe(4);
    expect(refused.problem()).toMatchObject({ code: 'preview_not_restartable' });
  });
});
