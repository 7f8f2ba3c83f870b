import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { failure, type Harness, installationClient, startHarness } from './support.ts';

const repo = { owner: 'demo-org', repo: 'service-b' };

describe('rate limits and server errors', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(() => h.close());

  it('puts the rate-limit headers on every answer, errors included', async () => {
    const octokit = installationClient(h.forge, h.installationId);
    const ok = await octokit.request('GET /repos/{owner}/{repo}', repo);
    const missing = await failure(octokit.request('GET /repos/{owner}/{repo}', { ...repo, repo: 'nope' }));
    for (const headers of [ok.headers, missing.response?.headers ?? {}]) {
      expect(headers['x-ratelimit-limit']).toBe('5000');
      expect(Number(headers['x-ratelimit-remaining'])).toBeGreaterThan(4990);
      expect(Number(headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
      expect(headers['x-ratelimit-resource']).toBe('core');
    }
    expect(Number(missing.response?.headers['x-ratelimit-used'])).toBe(
      Number(ok.headers['x-ratelimit-used']) + 1,
    );
  });

  it('an exhausted primary limit reaches the throttling plugin, which retries after the reset', async () => {
    const seen: number[] = [];
    const octokit = installationClient(h.forge, h.installationId, {
      throttle: {
        retryAfterBaseValue: 10,
        onRateLimit: (retryAfter, _options, _octokit, retryCount) => {
          seen.push(retryAfter);
          return retryCount < 1;
        },
        onSecondaryRateLimit: () => false,
      },
    });
    await octokit.auth({ type: 'installation' });
    h.forge.setFaults({ rateLimit: { count: 1, kind: 'primary', retryAfterSeconds: 2 } });

    const { data } = await octokit.request('GET /repos/{owner}/{repo}', repo);
    expect(data.full_name).toBe('demo-org/service-b');
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toBeLessThanOrEqual(4);
    expect(h.forge.faults().rateLimit).toBeNull();
  });

  it('answers an exhausted primary limit with 403 and x-ratelimit-remaining 0', async () => {
    const octokit = installationClient(h.forge, h.installationId);
    await octokit.auth({ type: 'installation' });
    h.forge.setFaults({ rateLimit: { count: 2, kind: 'primary' } });
    for (let i = 0; i < 2; i++) {
      const error = await failure(octokit.request('GET /repos/{owner}/{repo}', repo));
      expect(error.status).toBe(403);
      expect(error.message).toContain(`API rate limit exceeded for installation ID ${h.installationId}`);
      expect(error.response?.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(error.response?.headers['x-ratelimit-reset']) - Date.now() / 1000).toBeGreaterThan(50);
    }
    await octokit.request('GET /repos/{owner}/{repo}', repo);
  });

  it('a secondary limit answers 429 with retry-after, which the throttling plugin honours', async () => {
    const seen: number[] = [];
    const octokit = installationClient(h.forge, h.installationId, {
      throttle: {
        retryAfterBaseValue: 1,
        onRateLimit: () => false,
        onSecondaryRateLimit: (retryAfter) => {
          seen.push(retryAfter);
          return seen.length === 1;
        },
      },
    });
    await octokit.auth({ type: 'installation' });
    h.forge.setFaults({ rateLimit: { count: 1, kind: 'secondary', retryAfterSeconds: 7 } });
    await octokit.request('GET /repos/{owner}/{repo}/pulls', repo);
    expect(seen).toEqual([7]);

    const plain = installationClient(h.forge, h.installationId);
    h.forge.setFaults({ rateLimit: { count: 1, kind: 'secondary', retryAfterSeconds: 7 } });
    const error = await failure(plain.request('GET /repos/{owner}/{repo}/pulls', repo));
    expect(error.status).toBe(429);
    expect(error.response?.headers['retry-after']).toBe('7');
    expect(error.message).toContain('secondary rate limit');
  });

  it('server errors are retried by the retry plugin', async () => {
    const octokit = installationClient(h.forge, h.installationId, { retries: 3 });
    const before = await octokit.request('GET /repos/{owner}/{repo}', repo);
    h.forge.setFaults({ serverErrors: { count: 2 } });
    const after = await octokit.request('GET /repos/{owner}/{repo}', repo);
    expect(after.status).toBe(200);
    expect(Number(after.headers['x-ratelimit-used'])).toBe(Number(before.headers['x-ratelimit-used']) + 3);
  });

  it('logs every API request by method, route and answer, numbers written {n}', async () => {
    const octokit = installationClient(h.forge, h.installationId);
    const { pullRequest } = await h.forge.open({ repository: 'demo-org/service-b', head: 'logged' });
    const issue = { ...repo, issue_number: pullRequest?.number ?? 0 };
    const before = h.forge.requests();
    const first = await octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', issue);
    await failure(
      octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
        ...issue,
        headers: { 'if-none-match': first.headers.etag },
      }),
    );
    await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...issue,
      body: 'hi',
    });
    const counted = (key: string) => (h.forge.requests()[key] ?? 0) - (before[key] ?? 0);
    expect(counted('GET /repos/demo-org/service-b/issues/{n}/comments 200')).toBe(1);
    expect(counted('GET /repos/demo-org/service-b/issues/{n}/comments 304')).toBe(1);
    expect(counted('POST /repos/demo-org/service-b/issues/{n}/comments 201')).toBe(1);
  });
});
