// What the forge shows a person (a read-only page per pull request, `forge state`), suspended
// installations as GitHub has them, and the form content type a GitHub App's webhook may use.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { verify } from '@octokit/webhooks-methods';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appClient, bareClient, failure, type Harness, installationClient, startHarness } from './support.ts';

const run = promisify(execFile);
const cli = join(import.meta.dirname, '../src/cli.ts');
const repository = 'demo-org/service-b';

let h: Harness;
afterEach(() => h.close());

describe('pull request pages and forge state', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it('serves a read-only page per pull request with its title, labels, head commit, comment and check runs', async () => {
    const { pullRequest } = await h.forge.open({
      repository,
      head: 'feature',
      title: '<script>alert(1)</script> new checkout',
      labels: ['preview'],
    });
    const pr = pullRequest as NonNullable<typeof pullRequest>;
    const octokit = installationClient(h.forge, h.installationId);
    const owner = { owner: 'demo-org', repo: 'service-b' };
    await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...owner,
      issue_number: pr.number,
      body: 'Preview ready: http://c-1.preview.localhost:8082/',
    });
    await octokit.request('POST /repos/{owner}/{repo}/check-runs', {
      ...owner,
      name: 'preview',
      head_sha: pr.headSha,
      conclusion: 'success',
      details_url: 'http://c-1.preview.localhost:8082/',
      output: { title: 'Preview ready', summary: 'service-b ← b-123' },
    });

    expect(pr.htmlUrl).toBe(`${h.forge.url}/${repository}/pull/${pr.number}`);
    const page = await fetch(pr.htmlUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const text = await page.text();
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; new checkout');
    expect(text).not.toContain('<script>');
    expect(text).toContain('<span class="label">preview</span>');
    expect(text).toContain(pr.headSha);
    expect(text).toContain('Preview ready: http://c-1.preview.localhost:8082/');
    expect(text).toContain('<strong>success</strong>');
    expect(text).toContain('<a href="http://c-1.preview.localhost:8082/">');
    expect(text).toContain('preview-service[bot]');

    const index = await (await fetch(`${h.forge.url}/`)).text();
    expect(index).toContain(`href="/${repository}/pull/${pr.number}"`);
    expect((await fetch(`${h.forge.url}/${repository}/pull/999`)).status).toBe(404);
    // The API beside the pages is unchanged: GitHub's JSON 404 for an unknown route.
    expect((await fetch(`${h.forge.url}/${repository}/pulls/1`)).headers.get('content-type')).toMatch(/json/);

    const [state] = h.forge.state().pullRequests;
    expect(state?.comments).toEqual([
      expect.objectContaining({
        author: 'preview-service[bot]',
        body: 'Preview ready: http://c-1.preview.localhost:8082/',
      }),
    ]);
    expect(state?.checkRuns).toEqual([
      expect.objectContaining({
        name: 'preview',
        status: 'completed',
        conclusion: 'success',
        title: 'Preview ready',
        detailsUrl: 'http://c-1.preview.localhost:8082/',
      }),
    ]);
  });

  it('the CLI finds the forge on FORGE_PORT when no --url is given, and state shows comments', async () => {
    const { port } = new URL(h.forge.url);
    const { FORGE_URL: _, ...inherited } = process.env;
    const env = { ...inherited, FORGE_PORT: port };
    await h.forge.open({ repository, head: 'feature-port' });
    const { stdout } = await run(process.execPath, [cli, 'state'], { env });
    const state = JSON.parse(stdout) as { pullRequests: { headRef: string; comments: unknown[] }[] };
    expect(state.pullRequests.map((p) => [p.headRef, p.comments])).toEqual([['feature-port', []]]);
  });
});

describe('suspended installations', () => {
  beforeEach(async () => {
    h = await startHarness();
  });

  it('suspend sends installation.suspend, refuses tokens and silences the repositories; unsuspend undoes it', async () => {
    const { token } = (await installationClient(h.forge, h.installationId).auth({
      type: 'installation',
    })) as {
      token: string;
    };

    const { stdout } = await run(process.execPath, [cli, 'suspend', 'demo-org', '--url', h.forge.url]);
    expect(
      (JSON.parse(stdout) as { deliveries: { action: string }[] }).deliveries.map((d) => d.action),
    ).toEqual(['suspend']);
    const suspend = h.receiver.received.at(-1);
    expect(suspend?.event).toBe('installation');
    expect(await verify(h.forge.webhookSecret, suspend?.body ?? '', suspend?.signature ?? '')).toBe(true);
    const installation = suspend?.payload.installation as { id: number; suspended_at: string | null };
    expect(installation.id).toBe(h.installationId);
    expect(installation.suspended_at).toEqual(expect.any(String));

    const app = appClient(h.forge);
    const { data } = await app.request('GET /app/installations/{installation_id}', {
      installation_id: h.installationId,
    });
    expect(data.suspended_at).toBe(installation.suspended_at);
    const refused = await failure(
      app.request('POST /app/installations/{installation_id}/access_tokens', {
        installation_id: h.installationId,
      }),
    );
    expect(refused).toMatchObject({
      status: 403,
      message: expect.stringContaining('This installation has been suspended'),
    });
    const revoked = await failure(
      bareClient(h.forge).request('GET /installation/repositories', {
        headers: { authorization: `token ${token}` },
      }),
    );
    expect(revoked.status).toBe(401);

    const before = h.receiver.received.length;
    await h.forge.open({ repository, head: 'while-suspended', labels: ['preview'] });
    expect(h.receiver.received).toHaveLength(before);

    // The app's own route: DELETE …/suspended unsuspends (204), with the webhook.
    const unsuspended = await app.request('DELETE /app/installations/{installation_id}/suspended', {
      installation_id: h.installationId,
    });
    expect(unsuspended.status).toBe(204);
    expect(h.receiver.received.at(-1)?.payload.action).toBe('unsuspend');
    expect(h.forge.state().installations[0]?.suspendedAt).toBeNull();
    await installationClient(h.forge, h.installationId).request('GET /installation/repositories');
    await expect(h.forge.suspend({ account: 'nobody' })).rejects.toMatchObject({
      code: 'installation_not_found',
    });
  });
});

describe('the form content type', () => {
  beforeEach(async () => {
    h = await startHarness({ webhookContentType: 'form' });
  });

  it('sends payload=<url-encoded JSON>, signed over the form body, and redelivers the same bytes', async () => {
    await h.forge.open({ repository, head: 'feature-form' });
    const [webhook] = h.receiver.received;
    expect(webhook?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(webhook?.body.startsWith('payload=%7B')).toBe(true);
    expect(await verify(h.forge.webhookSecret, webhook?.body ?? '', webhook?.signature ?? '')).toBe(true);
    expect(webhook?.payload.action).toBe('opened');

    const app = appClient(h.forge);
    const { data: deliveries } = await app.request('GET /app/hook/deliveries');
    const id = deliveries[0]?.id as number;
    const { data: delivery } = await app.request('GET /app/hook/deliveries/{delivery_id}', {
      delivery_id: id,
    });
    expect((delivery.request.payload as { action: string }).action).toBe('opened');
    h.forge.setWebhookContentType('json');
    await app.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: id });
    const again = h.receiver.received.at(-1);
    expect(again?.body).toBe(webhook?.body);
    expect(again?.headers['content-type']).toBe('application/x-www-form-urlencoded');
  });
});
