import { Webhooks } from '@octokit/webhooks';
import { verify } from '@octokit/webhooks-methods';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ControlResult, PushEvent } from '../src/index.ts';
import { appClient, type Harness, type ReceivedWebhook, startHarness } from './support.ts';

const target = { repository: 'demo-org/service-b' };
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('webhooks', () => {
  let h: Harness;
  const pushes: PushEvent[] = [];
  beforeEach(async () => {
    pushes.length = 0;
    h = await startHarness({ onPush: (push) => void pushes.push(push) });
  });
  afterEach(() => h.close());

  /** The webhooks received since `from`, each checked for a valid signature over its exact body. */
  async function verified(from = 0): Promise<ReceivedWebhook[]> {
    const received = h.receiver.received.slice(from);
    for (const webhook of received) {
      expect(await verify(h.forge.webhookSecret, webhook.body, webhook.signature)).toBe(true);
    }
    return received;
  }

  function actions(received: ReceivedWebhook[]): string[] {
    return received.map((w) => `${w.event}.${w.payload.action}`);
  }

  async function openPull(labels: string[] = []): Promise<number> {
    const result = await h.forge.open({ ...target, head: 'feature', labels });
    return result.pullRequest?.number ?? 0;
  }

  it('sends opened then one labeled per label, with GitHub headers and payload fields', async () => {
    const result = await h.forge.open({
      ...target,
      head: 'feature',
      title: 'Add a thing',
      labels: ['preview'],
    });
    const received = await verified();
    expect(actions(received)).toEqual(['pull_request.opened', 'pull_request.labeled']);
    expect(received.map((w) => w.delivery)).toEqual(result.deliveries.map((d) => d.guid));

    const [opened, labeled] = received;
    expect(opened?.delivery).toMatch(GUID);
    expect(opened?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-hook-installation-target-type': 'integration',
      'x-github-hook-installation-target-id': String(h.forge.appId),
    });
    expect(opened?.headers['user-agent']).toMatch(/^GitHub-Hookshot\//);
    expect(opened?.headers['x-github-hook-id']).toMatch(/^\d+$/);
    expect(opened?.payload).toMatchObject({
      action: 'opened',
      number: result.pullRequest?.number,
      pull_request: {
        number: result.pullRequest?.number,
        state: 'open',
        title: 'Add a thing',
        merged: false,
        draft: false,
        html_url: result.pullRequest?.htmlUrl,
        head: {
          sha: result.pullRequest?.headSha,
          ref: 'feature',
          repo: { full_name: 'demo-org/service-b', fork: false },
        },
        base: { ref: 'main', sha: result.pullRequest?.baseSha, repo: { full_name: 'demo-org/service-b' } },
        labels: [],
        user: { login: 'forge-dev' },
      },
      repository: {
        name: 'service-b',
        full_name: 'demo-org/service-b',
        owner: { login: 'demo-org' },
        private: true,
      },
      organization: { login: 'demo-org' },
      installation: { id: h.installationId },
      sender: { login: 'forge-dev' },
    });
    expect(labeled?.payload).toMatchObject({
      action: 'labeled',
      label: { name: 'preview' },
      pull_request: { labels: [{ name: 'preview' }] },
    });
  });

  it('deliveries pass @octokit/webhooks verifyAndReceive', async () => {
    const webhooks = new Webhooks({ secret: h.forge.webhookSecret });
    const handled: string[] = [];
    webhooks.on('pull_request', ({ payload }) => {
      handled.push(`${payload.action} #${payload.number} ${payload.pull_request.head.sha}`);
    });
    const { pullRequest } = await h.forge.open({ ...target, head: 'feature' });
    const [webhook] = await verified();
    await webhooks.verifyAndReceive({
      id: webhook?.delivery ?? '',
      name: 'pull_request',
      payload: webhook?.body ?? '',
      signature: webhook?.signature ?? '',
    });
    expect(handled).toEqual([`opened #${pullRequest?.number} ${pullRequest?.headSha}`]);
    await expect(
      webhooks.verifyAndReceive({
        id: webhook?.delivery ?? '',
        name: 'pull_request',
        payload: `${webhook?.body} `,
        signature: webhook?.signature ?? '',
      }),
    ).rejects.toThrow(/signature does not match/);
  });

  it('each pull-request verb sends the event and action GitHub sends', async () => {
    const number = await openPull();
    const pull = { ...target, number };
    const steps: [string, () => Promise<ControlResult>, string][] = [
      ['push', () => h.forge.push(pull), 'synchronize'],
      ['label', () => h.forge.label({ ...pull, label: 'preview' }), 'labeled'],
      ['unlabel', () => h.forge.unlabel({ ...pull, label: 'preview' }), 'unlabeled'],
      ['base', () => h.forge.changeBase({ ...pull, base: 'release' }), 'edited'],
      ['close', () => h.forge.close(pull), 'closed'],
      ['reopen', () => h.forge.reopen(pull), 'reopened'],
      ['merge', () => h.forge.close({ ...pull, merged: true }), 'closed'],
    ];
    for (const [verb, act, action] of steps) {
      const from = h.receiver.received.length;
      const result = await act();
      const received = await verified(from);
      expect(actions(received), verb).toEqual([`pull_request.${action}`]);
      expect(received[0]?.delivery, verb).toBe(result.deliveries[0]?.guid);
      expect(received[0]?.payload, verb).toMatchObject({ number, installation: { id: h.installationId } });
    }
    const byAction = (action: string) => h.receiver.received.filter((w) => w.payload.action === action);
    const [sync] = byAction('synchronize');
    expect(sync?.payload).toMatchObject({ pull_request: { head: { sha: sync?.payload.after } } });
    expect(sync?.payload.before).not.toBe(sync?.payload.after);
    expect(byAction('unlabeled')[0]?.payload).toMatchObject({
      label: { name: 'preview' },
      pull_request: { labels: [] },
    });
    const [edited] = byAction('edited');
    expect(edited?.payload).toMatchObject({
      changes: { base: { ref: { from: 'main' } } },
      pull_request: { base: { ref: 'release' } },
    });
    const [closed, merged] = byAction('closed');
    expect(closed?.payload).toMatchObject({ pull_request: { state: 'closed', merged: false } });
    expect(merged?.payload).toMatchObject({ pull_request: { state: 'closed', merged: true } });
  });

  it('sends nothing for no-op verbs and refuses impossible ones', async () => {
    const number = await openPull(['preview']);
    const from = h.receiver.received.length;
    expect((await h.forge.label({ ...target, number, label: 'Preview' })).deliveries).toEqual([]);
    expect((await h.forge.unlabel({ ...target, number, label: 'absent' })).deliveries).toEqual([]);
    await expect(h.forge.reopen({ ...target, number })).rejects.toMatchObject({ code: 'pull_request_open' });
    await h.forge.close({ ...target, number, merged: true });
    await expect(h.forge.reopen({ ...target, number })).rejects.toMatchObject({
      code: 'pull_request_merged',
    });
    await expect(h.forge.push({ ...target, number })).rejects.toMatchObject({ code: 'pull_request_closed' });
    expect(actions(h.receiver.received.slice(from))).toEqual(['pull_request.closed']);
  });

  it('installing and uninstalling send installation and installation_repositories events', async () => {
    const created = await h.forge.install({ repository: 'new-org/api' });
    const added = await h.forge.install({ repository: 'new-org/web' });
    const again = await h.forge.install({ repository: 'new-org/web' });
    const removed = await h.forge.uninstall({ target: 'new-org/web' });
    const deleted = await h.forge.uninstall({ target: 'new-org' });
    expect(again.deliveries).toEqual([]);
    const received = await verified();
    expect(actions(received)).toEqual([
      'installation.created',
      'installation_repositories.added',
      'installation_repositories.removed',
      'installation.deleted',
    ]);
    expect(received.map((w) => w.delivery)).toEqual(
      [created, added, removed, deleted].map((result) => result.deliveries[0]?.guid),
    );
    const installationId = (received[0]?.payload.installation as { id: number } | undefined)?.id;
    expect(received[0]?.payload).toMatchObject({
      installation: { id: installationId, account: { login: 'new-org' }, app_id: h.forge.appId },
      repositories: [{ full_name: 'new-org/api' }],
      sender: { login: 'forge-admin' },
    });
    expect(received[1]?.payload).toMatchObject({
      repository_selection: 'selected',
      repositories_added: [{ full_name: 'new-org/web' }],
      repositories_removed: [],
    });
    expect(received[2]?.payload).toMatchObject({ repositories_removed: [{ full_name: 'new-org/web' }] });
    expect(received[3]?.payload).toMatchObject({ installation: { id: installationId } });
    expect(h.forge.state().installations.map((i) => i.account)).toEqual(['demo-org']);
  });

  it('sends no webhook for a repository the app is not installed on', async () => {
    const result = await h.forge.open({ repository: 'elsewhere/thing', head: 'feature' });
    expect(result.pullRequest?.number).toBe(1);
    expect(result.deliveries).toEqual([]);
    expect(h.receiver.received).toEqual([]);
  });

  it('records failed deliveries without retrying; redelivery through the API keeps the guid and the bytes', async () => {
    h.forge.setFaults({ webhookFailures: 2 });
    const result = await h.forge.open({ ...target, head: 'feature', labels: ['preview'] });
    expect(result.deliveries.map((d) => [d.status, d.statusCode])).toEqual([
      ['failed to connect to host', 0],
      ['failed to connect to host', 0],
    ]);
    expect(h.receiver.received).toEqual([]);
    expect(h.forge.faults().webhookFailures).toBe(0);

    const app = appClient(h.forge);
    const { data: listed } = await app.request('GET /app/hook/deliveries');
    expect(listed.map((d) => [d.guid, d.event, d.action, d.redelivery, d.status_code])).toEqual([
      [result.deliveries[1]?.guid, 'pull_request', 'labeled', false, 0],
      [result.deliveries[0]?.guid, 'pull_request', 'opened', false, 0],
    ]);

    for (const failed of [...listed].reverse()) {
      const attempt = await app.request('POST /app/hook/deliveries/{delivery_id}/attempts', {
        delivery_id: Number(failed.id),
      });
      expect(attempt.status).toBe(202);
    }
    const received = await verified();
    expect(received.map((w) => w.delivery)).toEqual(result.deliveries.map((d) => d.guid));
    const { data: original } = await app.request('GET /app/hook/deliveries/{delivery_id}', {
      delivery_id: Number(listed[1]?.id),
    });
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(original.request.payload);
    expect(original.request.headers?.['X-GitHub-Delivery']).toBe(result.deliveries[0]?.guid);

    const { data: after } = await app.request('GET /app/hook/deliveries');
    expect(after.slice(0, 2).map((d) => [d.guid, d.redelivery, d.status, d.status_code])).toEqual([
      [result.deliveries[1]?.guid, true, 'OK', 204],
      [result.deliveries[0]?.guid, true, 'OK', 204],
    ]);
  });

  it('records a receiver error or timeout as a failed delivery and does not retry it', async () => {
    h.receiver.status = 500;
    const failed = await h.forge.open({ ...target, head: 'feature' });
    expect(failed.deliveries.map((d) => [d.status, d.statusCode])).toEqual([
      ['Invalid HTTP Response: 500', 500],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.receiver.received).toHaveLength(1);

    const app = appClient(h.forge);
    const { data } = await app.request('GET /app/hook/deliveries/{delivery_id}', {
      delivery_id: failed.deliveries[0]?.id ?? 0,
    });
    expect(data).toMatchObject({ status_code: 500, redelivery: false, url: h.receiver.url });
    expect(data.duration).toBeGreaterThanOrEqual(0);

    await h.close();
    h = await startHarness({ deliveryTimeoutMs: 100 });
    h.receiver.delayMs = 1000;
    const slow = await h.forge.open({ ...target, head: 'feature' });
    expect(slow.deliveries.map((d) => d.status)).toEqual(['timed out']);
  });

  it('pages hook deliveries with a cursor in the Link header', async () => {
    const number = await openPull();
    for (const label of ['a', 'b', 'c', 'd']) await h.forge.label({ ...target, number, label });
    const app = appClient(h.forge);
    const first = await app.request('GET /app/hook/deliveries', { per_page: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.headers.link).toMatch(/^<[^>]+[?&]cursor=v1_\d+[^>]*>; rel="next"$/);
    const all = await app.paginate('GET /app/hook/deliveries', { per_page: 2 });
    expect(all.map((d) => d.action)).toEqual(['labeled', 'labeled', 'labeled', 'labeled', 'opened']);
    expect(new Set(all.map((d) => d.id)).size).toBe(5);
  });

  it('calls onPush with the repository, number, head SHA and branch of each new head', async () => {
    const opened = await h.forge.open({ ...target, head: 'feature' });
    const number = opened.pullRequest?.number ?? 0;
    const pushed = await h.forge.push({ ...target, number });
    const sha = 'a'.repeat(40);
    await h.forge.push({ ...target, number, sha });
    await h.forge.label({ ...target, number, label: 'preview' });
    expect(pushes).toEqual([
      { repository: 'demo-org/service-b', number, headSha: opened.pullRequest?.headSha, branch: 'feature' },
      { repository: 'demo-org/service-b', number, headSha: pushed.pullRequest?.headSha, branch: 'feature' },
      { repository: 'demo-org/service-b', number, headSha: sha, branch: 'feature' },
    ]);
    expect(pushed.pullRequest?.headSha).not.toBe(opened.pullRequest?.headSha);
  });
});
