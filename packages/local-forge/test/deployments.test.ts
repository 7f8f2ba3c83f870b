import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadState } from '../src/persistence.ts';
import {
  bareClient,
  failure,
  type Harness,
  installationClient,
  type Octokit,
  startHarness,
} from './support.ts';

const repo = { owner: 'demo-org', repo: 'service-b' };
/** A created deployment's id (Octokit types the 201 and GitHub's 202 "merged" answer as one). */
const idOf = (data: object) => Number((data as { id: number }).id);

describe('deployments, as GitHub keeps them', () => {
  let h: Harness;
  let octokit: Octokit;
  let headSha: string;
  beforeEach(async () => {
    h = await startHarness();
    octokit = installationClient(h.forge, h.installationId);
    const { pullRequest } = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature' });
    headSha = pullRequest?.headSha ?? '';
  });
  afterEach(() => h.close());

  it('creates a transient preview deployment for a branch, and records its statuses newest first', async () => {
    const created = await octokit.request('POST /repos/{owner}/{repo}/deployments', {
      ...repo,
      ref: 'feature',
      environment: 'preview/feature',
      transient_environment: true,
      production_environment: false,
      auto_merge: false,
      required_contexts: [],
      description: 'Preview of feature',
    });
    expect(created.status).toBe(201);
    const deployment = created.data as { id: number; sha: string; ref: string; environment: string };
    expect(deployment).toMatchObject({
      sha: headSha,
      ref: 'feature',
      task: 'deploy',
      environment: 'preview/feature',
      original_environment: 'preview/feature',
      transient_environment: true,
      production_environment: false,
      creator: { login: expect.stringMatching(/\[bot\]$/) },
      statuses_url: `${h.forge.url}/repos/demo-org/service-b/deployments/${deployment.id}/statuses`,
    });

    const path = 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses' as const;
    const ids = { ...repo, deployment_id: deployment.id };
    await octokit.request(path, { ...ids, state: 'in_progress', log_url: 'http://console.test/c/1' });
    const success = await octokit.request(path, {
      ...ids,
      state: 'success',
      environment_url: 'http://c-1.preview.localhost/',
      log_url: 'http://console.test/c/1',
    });
    expect(success.data).toMatchObject({
      state: 'success',
      environment: 'preview/feature',
      environment_url: 'http://c-1.preview.localhost/',
      log_url: 'http://console.test/c/1',
      target_url: 'http://console.test/c/1',
    });

    const statuses = await octokit.request(
      'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses',
      ids,
    );
    expect(statuses.data.map((s) => s.state)).toEqual(['success', 'in_progress']);
    const one = await octokit.request(
      'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses/{status_id}',
      {
        ...ids,
        status_id: Number(success.data.id),
      },
    );
    expect(one.data.state).toBe('success');

    const listed = await octokit.request('GET /repos/{owner}/{repo}/deployments', {
      ...repo,
      environment: 'preview/feature',
    });
    expect(listed.data.map((d) => d.id)).toEqual([deployment.id]);
    const none = await octokit.request('GET /repos/{owner}/{repo}/deployments', {
      ...repo,
      environment: 'production',
    });
    expect(none.data).toEqual([]);
  });

  it('defaults to production and checks every commit status unless told which', async () => {
    await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      ...repo,
      sha: headSha,
      state: 'failure',
      context: 'ci/tests',
    });
    const refused = await failure(
      octokit.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: 'feature' }),
    );
    expect(refused.status).toBe(409);
    expect(refused.message).toContain('Conflict: Commit status checks failed for feature.');
    expect((refused.response?.data as { errors?: unknown[] } | undefined)?.errors).toEqual([
      {
        resource: 'Deployment',
        field: 'required_contexts',
        code: 'invalid',
        contexts: [{ context: 'ci/tests', state: 'failure' }],
      },
    ]);
    const missing = await failure(
      octokit.request('POST /repos/{owner}/{repo}/deployments', {
        ...repo,
        ref: 'feature',
        required_contexts: ['ci/lint'],
      }),
    );
    expect(missing.status).toBe(409);

    const created = await octokit.request('POST /repos/{owner}/{repo}/deployments', {
      ...repo,
      ref: 'feature',
      required_contexts: [],
    });
    expect(created.data).toMatchObject({ environment: 'production', production_environment: true });

    const unknown = await failure(
      octokit.request('POST /repos/{owner}/{repo}/deployments', { ...repo, ref: 'nowhere' }),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.message).toContain('No ref found for: nowhere');
    const badState = await failure(
      octokit.request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
        ...repo,
        deployment_id: idOf(created.data),
        state: 'done' as 'success',
      }),
    );
    expect(badState.status).toBe(422);
  });

  it('makes earlier deployments of an environment inactive on success, unless transient, and deletes only inactive ones', async () => {
    const create = (transient: boolean) =>
      octokit.request('POST /repos/{owner}/{repo}/deployments', {
        ...repo,
        ref: 'feature',
        environment: 'staging',
        required_contexts: [],
        transient_environment: transient,
      });
    const older = idOf((await create(false)).data);
    const transient = idOf((await create(true)).data);
    const newer = idOf((await create(false)).data);
    const latest = async (id: number) =>
      (
        await octokit.request('GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
          ...repo,
          deployment_id: id,
        })
      ).data[0]?.state;

    const refused = await failure(
      octokit.request('DELETE /repos/{owner}/{repo}/deployments/{deployment_id}', {
        ...repo,
        deployment_id: older,
      }),
    );
    expect(refused.status).toBe(422);

    await octokit.request('POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses', {
      ...repo,
      deployment_id: newer,
      state: 'success',
    });
    expect(await latest(older)).toBe('inactive');
    expect(await latest(transient)).toBeUndefined();
    expect(await latest(newer)).toBe('success');

    const deleted = await octokit.request('DELETE /repos/{owner}/{repo}/deployments/{deployment_id}', {
      ...repo,
      deployment_id: older,
    });
    expect(deleted.status).toBe(204);
    const gone = await failure(
      octokit.request('GET /repos/{owner}/{repo}/deployments/{deployment_id}', {
        ...repo,
        deployment_id: older,
      }),
    );
    expect(gone.status).toBe(404);
  });

  it('refuses a token without the deployments permission', async () => {
    const narrowed = (await octokit.auth({
      type: 'installation',
      permissions: { metadata: 'read', checks: 'write' },
    })) as { token: string };
    const refused = await failure(
      bareClient(h.forge).request('POST /repos/{owner}/{repo}/deployments', {
        ...repo,
        ref: 'feature',
        required_contexts: [],
        headers: { authorization: `token ${narrowed.token}` },
      }),
    );
    expect(refused.status).toBe(403);
    expect(refused.message).toContain('Resource not accessible by integration');
  });
});

it('reads a state file written before deployments existed', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'forge-state-'));
  try {
    const h = await startHarness({ stateFile: join(dir, 'state.json') });
    await h.close();
    const file = join(dir, 'state.json');
    const { deployments: _, deploymentStatuses: __, ...older } = JSON.parse(await readFile(file, 'utf8'));
    await writeFile(file, JSON.stringify(older));
    expect(loadState(file)).toMatchObject({ deployments: [], deploymentStatuses: [] });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
