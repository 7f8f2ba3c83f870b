/** The GitHub adapter against the local forge: the real octokit clients, GitHub's answers. */
import { generateKeyPairSync } from 'node:crypto';
import { Forge } from '@svc/core';
import { type LocalForge, startLocalForge } from '@svc/local-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgeWiring } from '../src/index.ts';

const repository = 'demo-org/service-b';
let forge: LocalForge;
let port: Forge.ForgePort;

beforeAll(async () => {
  const privateKey = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  forge = await startLocalForge({ seed: true, privateKey });
  port = forgeWiring({
    app: { appId: String(forge.appId), privateKey, apiUrl: forge.url, writeIntervalMs: 0 },
    webhookSecrets: { current: forge.webhookSecret },
  }).forge as Forge.ForgePort;
});
afterAll(() => forge?.stop());

const remaining = () => port.budgets().find((b) => b.installation !== 'app')?.remaining;

describe('the GitHub forge port', () => {
  it('reads pull requests as they are now; an uninstalled repository reads as none', async () => {
    const { pullRequest } = await forge.open({ repository, head: 'read', labels: ['preview'] });
    const fork = (await forge.open({ repository, head: 'from-fork', fork: 'someone' })).pullRequest;
    expect(await port.getPullRequest(repository, pullRequest?.number as number)).toEqual({
      repository,
      number: pullRequest?.number,
      open: true,
      labels: ['preview'],
      head_sha: pullRequest?.headSha,
      head_ref: 'read',
      fork: false,
    });
    expect((await port.getPullRequest(repository, fork?.number as number))?.fork).toBe(true);
    expect(await port.getPullRequest(repository, 9999)).toBeNull();
    expect(await port.getPullRequest('elsewhere/repo', 1)).toBeNull();
  });

  it('lists labelled open pull requests; an unchanged list answers 304 and costs no rate limit', async () => {
    const first = await port.listOpenPullRequests(repository, 'preview');
    expect(first.every((pr) => pr.labels.includes('preview') && pr.open)).toBe(true);
    const before = remaining();
    expect(await port.listOpenPullRequests(repository, 'preview')).toEqual(first);
    // Read before (the first test): answered from the cache after a 304 as well.
    await port.getPullRequest(repository, first[0]?.number as number);
    expect(remaining()).toBe(before);
  });

  it('edits one comment in place, and finds it again by its marker when the id is lost', async () => {
    const { pullRequest } = await forge.open({ repository, head: 'comments' });
    const number = pullRequest?.number as number;
    const marker = '<!-- svc-preview:pr-test -->';
    const id = await port.upsertComment(repository, number, { id: null, marker, body: `${marker}\nfirst` });
    expect(await port.upsertComment(repository, number, { id, marker, body: `${marker}\nsecond` })).toBe(id);
    expect(await port.upsertComment(repository, number, { id: null, marker, body: `${marker}\nthird` })).toBe(
      id,
    );
    const run = await port.upsertCheckRun(repository, null, {
      head_sha: pullRequest?.headSha as string,
      status: 'in_progress',
      conclusion: null,
      title: 'Deploying',
      summary: 'Deploying',
      details_url: null,
    });
    expect(
      await port.upsertCheckRun(repository, run, {
        head_sha: pullRequest?.headSha as string,
        status: 'completed',
        conclusion: 'success',
        title: 'Ready',
        summary: 'Preview: http://example.test/',
        details_url: 'http://example.test/',
      }),
    ).toBe(run);
  });

  it('turns a rate-limit answer into ForgeRateLimitedError and records when it lifts', async () => {
    const { pullRequest } = await forge.open({ repository, head: 'throttled' });
    forge.setFaults({ rateLimit: { count: 1, kind: 'primary', retryAfterSeconds: 30 } });
    const error = await port
      .getPullRequest(repository, (pullRequest?.number as number) + 0)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Forge.ForgeRateLimitedError);
    expect((error as Forge.ForgeRateLimitedError).retryAfterSeconds).toBeGreaterThanOrEqual(29);
    const throttled = port.budgets().find((b) => b.throttled_until !== null);
    expect(Date.parse(throttled?.throttled_until as string)).toBeGreaterThan(Date.now() + 25_000);
    forge.setFaults({ rateLimit: { count: 0, kind: 'primary' } });
  });

  it('discovers installations and repositories, checks the app, lists and redelivers deliveries', async () => {
    const installations = await port.listInstallations(1);
    expect(installations.items[0]).toMatchObject({ account: 'demo-org' });
    const repositories = await port.listRepositories(installations.items[0]?.id as number, 1);
    expect(repositories.items.map((r) => r.full_name)).toContain(repository);
    expect(await port.checkApp()).toEqual({ app_id: String(forge.appId), private_key: 'valid', error: null });

    forge.setWebhookUrl('http://127.0.0.1:9/unreachable');
    await forge.label({ repository, number: 1, label: 'again' });
    const failed = (await port.deliveries(new Date(Date.now() - 60_000))).filter((d) => !d.ok);
    expect(failed.length).toBeGreaterThan(0);
    await port.redeliver(failed[0]?.id as number);
    expect((await port.deliveries(new Date(Date.now() - 60_000))).length).toBeGreaterThan(failed.length);
  });
});
