import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  appClient,
  failure,
  type Harness,
  installationClient,
  type Octokit,
  startHarness,
} from './support.ts';

const repo = { owner: 'demo-org', repo: 'service-b' };

describe('discovery, pull requests and labels', () => {
  let h: Harness;
  let octokit: Octokit;
  beforeEach(async () => {
    h = await startHarness();
    octokit = installationClient(h.forge, h.installationId);
  });
  afterEach(() => h.close());

  it('pages installation repositories with GitHub Link headers, and paginate follows them', async () => {
    for (const name of ['r1', 'r2', 'r3', 'r4', 'r5'])
      await h.forge.install({ repository: `demo-org/${name}` });

    const first = await octokit.request('GET /installation/repositories', { per_page: 2 });
    expect(first.data.total_count).toBe(6);
    expect(first.data.repositories).toHaveLength(2);
    expect(first.headers.link).toBe(
      `<${h.forge.url}/installation/repositories?per_page=2&page=2>; rel="next", ` +
        `<${h.forge.url}/installation/repositories?per_page=2&page=3>; rel="last"`,
    );
    const middle = await octokit.request('GET /installation/repositories', { per_page: 2, page: 2 });
    expect(middle.headers.link).toMatch(/rel="prev".*rel="next".*rel="last".*rel="first"/);

    const all = await octokit.paginate('GET /installation/repositories', { per_page: 2 });
    expect(all.map((r) => r.full_name).sort()).toEqual(
      ['r1', 'r2', 'r3', 'r4', 'r5', 'service-b'].map((n) => `demo-org/${n}`),
    );
  });

  it('lists app installations page by page as the app', async () => {
    await h.forge.install({ repository: 'second-org/a' });
    await h.forge.install({ repository: 'third-org/b' });
    const app = appClient(h.forge);
    const first = await app.request('GET /app/installations', { per_page: 1 });
    expect(first.headers.link).toContain('rel="next"');
    const all = await app.paginate('GET /app/installations', { per_page: 1 });
    expect(all.map((i) => i.account && 'login' in i.account && i.account.login)).toEqual([
      'demo-org',
      'second-org',
      'third-org',
    ]);
    const { data } = await app.request('GET /repos/{owner}/{repo}/installation', {
      owner: 'third-org',
      repo: 'b',
    });
    expect(data.id).toBe(all[2]?.id);
  });

  it('answers a repeated GET with 304 when the ETag still matches, without spending rate limit', async () => {
    const first = await octokit.request('GET /repos/{owner}/{repo}', repo);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^W\/".+"$/);

    const notModified = await failure(
      octokit.request('GET /repos/{owner}/{repo}', { ...repo, headers: { 'if-none-match': etag } }),
    );
    expect(notModified.status).toBe(304);
    expect(notModified.response?.headers['x-ratelimit-used']).toBe(first.headers['x-ratelimit-used']);

    const again = await octokit.request('GET /repos/{owner}/{repo}', repo);
    expect(Number(again.headers['x-ratelimit-used'])).toBe(Number(first.headers['x-ratelimit-used']) + 1);
    expect(again.headers['x-ratelimit-limit']).toBe('5000');
    expect(again.headers['x-ratelimit-resource']).toBe('core');
  });

  it('gives a changed resource a new ETag', async () => {
    const { pullRequest } = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature' });
    const number = pullRequest?.number ?? 0;
    const before = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: number,
    });
    await h.forge.label({ repository: 'demo-org/service-b', number, label: 'preview' });
    const after = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: number,
      headers: { 'if-none-match': before.headers.etag },
    });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.data.labels.map((l) => l.name)).toEqual(['preview']);
  });

  it('lists pull requests by state and head, and shows one in full', async () => {
    const one = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature-1', title: 'One' });
    await h.forge.open({ repository: 'demo-org/service-b', head: 'feature-2', base: 'release', draft: true });
    const three = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature-3' });
    await h.forge.close({ repository: 'demo-org/service-b', number: three.pullRequest?.number ?? 0 });

    const open = await octokit.paginate('GET /repos/{owner}/{repo}/pulls', { ...repo, per_page: 1 });
    expect(open.map((p) => p.head.ref)).toEqual(['feature-2', 'feature-1']);
    const closed = await octokit.request('GET /repos/{owner}/{repo}/pulls', { ...repo, state: 'closed' });
    expect(closed.data.map((p) => p.number)).toEqual([three.pullRequest?.number]);
    const all = await octokit.request('GET /repos/{owner}/{repo}/pulls', { ...repo, state: 'all' });
    expect(all.data).toHaveLength(3);
    const byHead = await octokit.request('GET /repos/{owner}/{repo}/pulls', {
      ...repo,
      head: 'demo-org:feature-1',
    });
    expect(byHead.data.map((p) => p.title)).toEqual(['One']);
    const badState = await failure(
      octokit.request('GET /repos/{owner}/{repo}/pulls', { ...repo, state: 'merged' as 'all' }),
    );
    expect(badState.status).toBe(422);

    const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: one.pullRequest?.number ?? 0,
    });
    expect(data).toMatchObject({
      number: one.pullRequest?.number,
      state: 'open',
      title: 'One',
      merged: false,
      draft: false,
      head: {
        ref: 'feature-1',
        sha: one.pullRequest?.headSha,
        repo: { full_name: 'demo-org/service-b', fork: false },
      },
      base: { ref: 'main', sha: one.pullRequest?.baseSha, repo: { full_name: 'demo-org/service-b' } },
      user: { login: 'forge-dev' },
    });
    const missing = await failure(
      octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...repo, pull_number: 99 }),
    );
    expect(missing.status).toBe(404);
  });

  it('shows pull requests from forks with the fork as head repository', async () => {
    const { pullRequest } = await h.forge.open({
      repository: 'demo-org/service-b',
      head: 'patch-1',
      fork: 'outsider',
    });
    const { data } = await octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...repo,
      pull_number: pullRequest?.number ?? 0,
    });
    expect(data.head.repo).toMatchObject({ full_name: 'outsider/service-b', fork: true });
    expect(data.head.label).toBe('outsider:patch-1');
    expect(data.base.repo.full_name).toBe('demo-org/service-b');
  });

  it('filters issues by label, marks pull requests with pull_request, and lists an issue labels', async () => {
    const labelled = await h.forge.open({
      repository: 'demo-org/service-b',
      head: 'a',
      labels: ['preview', 'team-x'],
    });
    await h.forge.open({ repository: 'demo-org/service-b', head: 'b', labels: ['team-x'] });

    const previews = await octokit.paginate('GET /repos/{owner}/{repo}/issues', {
      ...repo,
      labels: 'preview',
    });
    expect(previews.map((i) => i.number)).toEqual([labelled.pullRequest?.number]);
    expect(previews[0]?.pull_request?.url).toBe(
      `${h.forge.url}/repos/demo-org/service-b/pulls/${labelled.pullRequest?.number}`,
    );
    const both = await octokit.request('GET /repos/{owner}/{repo}/issues', {
      ...repo,
      labels: 'team-x,preview',
    });
    expect(both.data).toHaveLength(1);
    const teamX = await octokit.request('GET /repos/{owner}/{repo}/issues', {
      ...repo,
      labels: 'team-x',
      state: 'all',
    });
    expect(teamX.data).toHaveLength(2);

    const labels = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/labels', {
      ...repo,
      issue_number: labelled.pullRequest?.number ?? 0,
    });
    expect(labels.data.map((l) => l.name)).toEqual(['preview', 'team-x']);
  });
});

describe('feedback: check runs, statuses and comments', () => {
  let h: Harness;
  let octokit: Octokit;
  let headSha: string;
  let number: number;
  beforeEach(async () => {
    h = await startHarness();
    octokit = installationClient(h.forge, h.installationId);
    const { pullRequest } = await h.forge.open({ repository: 'demo-org/service-b', head: 'feature' });
    headSha = pullRequest?.headSha ?? '';
    number = pullRequest?.number ?? 0;
  });
  afterEach(() => h.close());

  it('creates, updates and lists check runs for a commit or branch', async () => {
    const created = await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...repo,
      name: 'preview',
      head_sha: headSha,
      status: 'in_progress',
      external_id: 'preview-1',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      name: 'preview',
      head_sha: headSha,
      status: 'in_progress',
      conclusion: null,
      app: { id: h.forge.appId },
    });
    expect(created.data.pull_requests.map((p) => p.number)).toEqual([number]);

    const updated = await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      ...repo,
      check_run_id: created.data.id,
      conclusion: 'success',
      details_url: 'http://preview.example.test/',
      output: { title: 'Preview ready', summary: 'It works' },
    });
    expect(updated.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      details_url: 'http://preview.example.test/',
      output: { title: 'Preview ready', summary: 'It works' },
    });
    expect(updated.data.completed_at).not.toBeNull();

    // As GitHub: a completed run keeps its status and conclusion; the rest still changes.
    const reopened = await octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
      ...repo,
      check_run_id: created.data.id,
      status: 'in_progress',
      output: { title: 'Restarting', summary: 'Again' },
    });
    expect(reopened.data).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      completed_at: updated.data.completed_at,
      output: { title: 'Restarting', summary: 'Again' },
    });

    await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...repo,
      name: 'preview',
      head_sha: headSha,
    });
    const latest = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...repo,
      ref: 'feature',
    });
    expect(latest.data.total_count).toBe(1);
    expect(latest.data.check_runs[0]?.status).toBe('queued');
    const all = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...repo,
      ref: headSha,
      filter: 'all',
    });
    expect(all.data.total_count).toBe(2);
  });

  it('refuses check runs GitHub would refuse', async () => {
    const unknownSha = await failure(
      octokit.request('POST /repos/{owner}/{repo}/check-runs', {
        ...repo,
        name: 'preview',
        head_sha: 'f'.repeat(40),
      }),
    );
    expect(unknownSha.status).toBe(422);
    expect(unknownSha.message).toContain('No commit found for SHA');
    const noName = await failure(
      octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...repo, head_sha: headSha } as never),
    );
    expect(noName.status).toBe(422);
    expect(noName.message).toContain('"name" wasn\'t supplied');
    const badConclusion = await failure(
      octokit.request('POST /repos/{owner}/{repo}/check-runs', {
        ...repo,
        name: 'x',
        head_sha: headSha,
        conclusion: 'great' as 'success',
      }),
    );
    expect(badConclusion.status).toBe(422);
  });

  it('records commit statuses', async () => {
    const created = await octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
      ...repo,
      sha: headSha,
      state: 'pending',
      context: 'preview',
      target_url: 'http://preview.example.test/',
    });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({
      state: 'pending',
      context: 'preview',
      creator: { login: 'preview-service[bot]' },
    });
    const listed = await octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/statuses', {
      ...repo,
      ref: headSha,
    });
    expect(listed.data.map((s) => s.state)).toEqual(['pending']);
    const bad = await failure(
      octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
        ...repo,
        sha: headSha,
        state: 'done' as 'success',
      }),
    );
    expect(bad.status).toBe(422);
  });

  it('posts, lists and edits comments as the app bot', async () => {
    const created = await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repo,
      issue_number: number,
      body: 'Preview: building',
    });
    expect(created.status).toBe(201);
    expect(created.data.user?.login).toBe('preview-service[bot]');
    expect(created.data.performed_via_github_app?.id).toBe(h.forge.appId);

    const edited = await octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', {
      ...repo,
      comment_id: created.data.id,
      body: 'Preview: ready',
    });
    expect(edited.data.body).toBe('Preview: ready');
    const listed = await octokit.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...repo,
      issue_number: number,
    });
    expect(listed.map((c) => c.body)).toEqual(['Preview: ready']);

    const empty = await failure(
      octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...repo,
        issue_number: number,
      } as never),
    );
    expect(empty.status).toBe(422);
    const malformed = await fetch(`${h.forge.url}/repos/demo-org/service-b/issues/${number}/comments`, {
      method: 'POST',
      headers: {
        authorization: `token ${((await octokit.auth({ type: 'installation' })) as { token: string }).token}`,
      },
      body: '{not json',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ message: 'Problems parsing JSON' });
  });
});
