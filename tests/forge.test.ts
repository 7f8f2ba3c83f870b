/**
 * Pull-request previews end to end through the local forge: real webhooks (signed, delivered to
 * /webhooks/forge), the real GitHub App adapter (octokit) reading pull requests and writing the
 * check run and comment, builds published through the build-publication route as CI does.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sign } from '@octokit/webhooks-methods';
import { Checks, type Compositions, Forge, Resources } from '@svc/core';
import { ciImage, type Stack } from '@svc/local';
import type { HttpClient } from '@svc/local/testing';
import { useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import {
  deployedAs as deployed,
  deploymentsOf as deploymentsOn,
  installationClient,
} from './support/forge.ts';

const repository = 'demo-org/service-b';
let stack: Stack;
let http: HttpClient;
let forge: LocalForge;
/** Sends of the job queue hang while set: the queue is "down". */
let queueDown = false;

useTestStack(
  {
    forge: { publishOnPush: false, writeIntervalMs: 0 },
    forgeSettings: { pollSeconds: 1, dispatchGraceSeconds: 1, enqueueTimeoutMs: 300 },
    wrapJobs: (jobs) => ({
      // Down: a send fails after a while, as the SDK gives up on an unreachable queue.
      send: (job, options) =>
        queueDown
          ? new Promise<void>((_, reject) => setTimeout(() => reject(new Error('queue unreachable')), 2000))
          : jobs.send(job, options),
    }),
  },
  (environment) => {
    stack = environment.stack;
    http = environment.http;
    forge = stack.forge as LocalForge;
  },
);

/** CI: publishes the build of `sha` through the normal route. */
async function publish(sha: string, branch = 'feature') {
  const answer = await http.post('/v1/projects/demo/builds', {
    component: 'service-b',
    repository,
    commit_sha: sha,
    ref: branch,
    image: ciImage('service-b', { headSha: sha, branch }),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  return answer.body;
}

async function previewOf(number: number): Promise<Forge.PreviewView | undefined> {
  const { body } = await http.get('/v1/forge/previews?project=demo&limit=200');
  return (body.items as Forge.PreviewView[]).find((p) => p.pull_request.number === number);
}

/** Polls the preview of pull request `number` until `done` holds; the message shows where it stopped. */
async function until(number: number, done: (preview: Forge.PreviewView) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const preview = await previewOf(number);
    if (preview && done(preview)) return preview;
    if (Date.now() > deadline) throw new Error(`preview of #${number} is ${JSON.stringify(preview)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function compositionsOf(number: number): Promise<Compositions.CompositionView[]> {
  const { body } = await http.get('/v1/compositions?project=demo&limit=200');
  return (body.items as Compositions.CompositionView[]).filter(
    (c) => c.owner.kind === 'forge' && c.owner.subject === `${repository}#${number}`,
  );
}

/** The image serving service-b behind a preview URL, from the demo workloads' hop report. */
async function servingImage(url: string): Promise<string | undefined> {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const hops = Checks.hopsOf(await response.json().catch(() => null)) ?? [];
  return hops.find((hop) => hop.component === 'service-b')?.image;
}

async function comments(number: number): Promise<string[]> {
  const { data } = await installationClient(forge).request(
    'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
    {
      owner: 'demo-org',
      repo: 'service-b',
      issue_number: number,
    },
  );
  return data.map((comment) => comment.body ?? '');
}

/** Waits for the pull request's one preview comment to say `text`. */
async function commented(number: number, text: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const all = await comments(number);
    if (all.length === 1 && all[0]?.includes(text)) return all[0];
    if (Date.now() > deadline) throw new Error(`comments of #${number}: ${JSON.stringify(all)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Waits until the service finished processing these deliveries. */
async function processed(deliveries: { guid: string }[]) {
  const deadline = Date.now() + 10_000;
  for (const { guid } of deliveries) {
    while ((await stack.stores.forgeStore.getDelivery(guid))?.state !== 'processed') {
      if (Date.now() > deadline) throw new Error(`delivery ${guid} was not processed`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The forge's request counts once it has answered nothing for a second: the app's writes are done. */
async function quietRequests(): Promise<Record<string, number>> {
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  let last = forge.requests();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = forge.requests();
    if (total(now) === total(last)) return now;
    last = now;
  }
}

/** The content-creating requests the app made between two counts (`METHOD route status`: count). */
const writesBetween = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .filter(([key]) => /^(POST|PATCH|PUT|DELETE) /.test(key))
      .map(([key, count]) => [key, count - (before[key] ?? 0)] as const)
      .filter(([, count]) => count > 0),
  );

const open = async (head: string, labels = ['preview']) => {
  const { pullRequest } = await forge.open({ repository, head, labels });
  if (!pullRequest) throw new Error('the forge opened no pull request');
  return pullRequest;
};

describe('status as GitHub Deployments', () => {
  const deploymentsOf = (sha: string) => deploymentsOn(forge, repository, sha);
  const deployedAs = (sha: string, state: string) => deployed(forge, repository, sha, state);
  const policyPath = `/v1/projects/demo/repositories/${encodeURIComponent(repository)}/preview-policy`;
  const setFeedback = async (feedback: Forge.FeedbackMode) => {
    const current = (await http.get(policyPath)).body as Forge.PreviewPolicy;
    const { project: _p, repository: _r, revision: _v, updated_at: _u, updated_by: _b, ...body } = current;
    const answer = await http.put(policyPath, { ...body, feedback });
    expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  };

  it('with feedback "both": a transient deployment per head commit, success at the preview URL, inactive once stopped', async () => {
    await setFeedback('both');
    try {
      const pr = await open('feature-deployed');
      await publish(pr.headSha);
      const ready = await until(pr.number, (p) => p.state === 'ready');
      await commented(pr.number, ready.url ?? 'no url');
      const [deployment, ...others] = await deployedAs(pr.headSha, 'success');
      expect(others).toEqual([]);
      expect(deployment).toMatchObject({
        environment: 'preview/feature-deployed',
        transient_environment: true,
        production_environment: false,
        newest: { state: 'success', environment_url: ready.url },
      });
      // The console's page of the preview's composition, at the service's public origin.
      expect(deployment?.newest?.log_url).toBe(
        `${stack.apiUrl}/console/compositions/${ready.composition_id}`,
      );
      expect(deployment?.states.at(-1)).toMatch(/^(queued|in_progress)$/);

      const sha = Array.from({ length: 40 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
      await publish(sha);
      await forge.push({ repository, number: pr.number, sha });
      const moved = await until(pr.number, (p) => p.state === 'ready' && p.deployed_sha === sha);
      expect((await deployedAs(sha, 'success'))[0]?.newest?.environment_url).toBe(moved.url);
      expect((await deploymentsOf(pr.headSha))[0]?.newest?.state).toBe('inactive');

      await forge.close({ repository, number: pr.number });
      await until(pr.number, (p) => p.state === 'stopped');
      expect(await deployedAs(sha, 'inactive')).toHaveLength(1);
    } finally {
      await setFeedback('comment');
    }
  });
});

describe('pull-request previews', () => {
  it('waits for the head build, becomes ready, follows pushes (never to an older build) and stops on unlabel', async () => {
    const pr = await open('feature-follow');
    await until(pr.number, (p) => p.state === 'waiting_for_build');
    expect(await compositionsOf(pr.number)).toEqual([]);

    await publish(pr.headSha);
    const ready = await until(pr.number, (p) => p.state === 'ready');
    expect(ready.builds['service-b']).toMatch(/^b-/);
    expect(await servingImage(ready.url ?? '')).toBe(
      ciImage('service-b', { headSha: pr.headSha, branch: 'feature' }),
    );
    await commented(pr.number, ready.url ?? 'no url');

    const composition = (await compositionsOf(pr.number))[0] as Compositions.CompositionView;
    const patch = await http.patch(`/v1/compositions/${composition.id}`, {
      expected_generation: 1,
      overrides: {},
    });
    expect(patch.status).toBe(409);
    expect(patch.body.code).toBe('forge_owned');

    // Two pushes; the newer commit's build arrives first, the older one's after it.
    const second = (await forge.push({ repository, number: pr.number })).pullRequest?.headSha as string;
    const third = (await forge.push({ repository, number: pr.number })).pullRequest?.headSha as string;
    await until(pr.number, (p) => p.state === 'waiting_for_build' && p.pull_request.head_sha === third);
    await publish(third);
    const moved = await until(pr.number, (p) => p.state === 'ready' && p.deployed_sha === third);
    await publish(second);
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    const after = await until(pr.number, (p) => p.state === 'ready');
    expect(after.deployed_sha).toBe(third);
    expect(after.builds).toEqual(moved.builds);
    expect(await servingImage(after.url ?? '')).toBe(
      ciImage('service-b', { headSha: third, branch: 'feature' }),
    );
    expect(await comments(pr.number)).toHaveLength(1);

    await forge.unlabel({ repository, number: pr.number, label: 'preview' });
    await until(pr.number, (p) => p.state === 'stopped');
    const [gone] = await compositionsOf(pr.number);
    expect(gone === undefined || gone.phase === 'destroying').toBe(true);
  });

  it('a push to a ready preview whose build is published costs one check-run create, one check-run update and one comment edit; once stopped, a push costs none', async () => {
    const pr = await open('feature-writes');
    await publish(pr.headSha);
    const first = await until(pr.number, (p) => p.state === 'ready');
    await commented(pr.number, first.url ?? 'no url');
    const sha = Array.from({ length: 40 }, () => Math.floor(Math.random() * 16).toString(16)).join('');
    await publish(sha);
    const before = await quietRequests();

    await forge.push({ repository, number: pr.number, sha });
    await until(pr.number, (p) => p.state === 'ready' && p.deployed_sha === sha);
    expect(writesBetween(before, await quietRequests())).toEqual({
      'POST /repos/demo-org/service-b/check-runs 201': 1,
      'PATCH /repos/demo-org/service-b/check-runs/{n} 200': 1,
      'PATCH /repos/demo-org/service-b/issues/comments/{n} 200': 1,
    });
    const shown = forge
      .state()
      .pullRequests.find((p) => p.repository === repository && p.number === pr.number);
    expect(shown?.checkRuns).toMatchObject([
      { headSha: sha, status: 'completed', conclusion: 'success', detailsUrl: first.url },
    ]);
    expect(shown?.comments).toHaveLength(1);
    expect(shown?.comments[0]?.body).toContain(sha.slice(0, 12));

    await forge.unlabel({ repository, number: pr.number, label: 'preview' });
    await until(pr.number, (p) => p.state === 'stopped');
    const stopped = await quietRequests();
    // GitHub keeps a completed run as it is: the stop is a new run on the commit, the one shown.
    const runs = forge.state().pullRequests.find((p) => p.number === pr.number)?.checkRuns ?? [];
    expect(runs.map((r) => [r.status, r.conclusion, r.title])).toEqual([
      ['completed', 'success', 'Ready'],
      ['completed', 'neutral', 'Stopped'],
    ]);
    const { deliveries } = await forge.push({ repository, number: pr.number });
    await processed(deliveries);
    expect(writesBetween(stopped, await quietRequests())).toEqual({});
  });

  it('a preview stored before per-channel feedback writes once more (a new check run: whether the old one is open is not known); a rate-limited comment is given back and retried alone', async () => {
    const pr = await open('feature-old-record');
    await publish(pr.headSha);
    const ready = await until(pr.number, (p) => p.state === 'ready');
    await commented(pr.number, ready.url ?? 'no url');
    await quietRequests();
    // The item as it was stored before each channel had its fingerprint: one for both.
    const table = { TableName: stack.resources.tableName };
    const key = { pk: `PREVIEW#${ready.id}`, sk: 'PREVIEW' };
    const { Item: item } = await stack.clients.documents.send(new GetCommand({ ...table, Key: key }));
    if (!item) throw new Error(`no item of preview ${ready.id}`);
    const { comment_fingerprint: _c, check_run_fingerprint: _r, check_run_open: _o, ...ids } = item.feedback;
    const old = { ...item, feedback: { ...ids, fingerprint: 'one-for-both' } };
    await stack.clients.documents.send(new PutCommand({ ...table, Item: old }));

    // The comment's call is refused once for a rate limit, as GitHub's secondary limit would.
    const port = stack.workerDeps.forge as Forge.ForgePort;
    let refuse = true;
    const limited: Forge.ForgePort = {
      ...port,
      upsertComment: (...call) => {
        if (!refuse) return port.upsertComment(...call);
        refuse = false;
        return Promise.reject(new Forge.ForgeRateLimitedError('1', 1));
      },
    };
    const converge = () =>
      Forge.convergePullRequest(
        { ...stack.workerDeps, forge: limited },
        { project: 'demo', repository, number: pr.number },
      );

    let before = forge.requests();
    await expect(converge()).rejects.toThrow(Forge.ForgeRateLimitedError);
    expect(writesBetween(before, forge.requests())).toEqual({
      'POST /repos/demo-org/service-b/check-runs 201': 1,
    });
    const given = (await stack.stores.forgeStore.getPreview(ready.id))?.feedback;
    expect(given).toMatchObject({ comment_id: ids.comment_id, comment_fingerprint: null });
    expect(given?.check_run_id).not.toBe(ids.check_run_id);
    expect(given?.check_run_fingerprint).not.toBeNull();

    before = forge.requests();
    await converge();
    expect(writesBetween(before, forge.requests())).toEqual({
      'PATCH /repos/demo-org/service-b/issues/comments/{n} 200': 1,
    });
    before = forge.requests();
    await converge();
    expect(writesBetween(before, forge.requests())).toEqual({});
    expect(await comments(pr.number)).toHaveLength(1);
  });

  it('a pull request closed before its preview existed leaves nothing behind', async () => {
    const pr = await open('feature-closed-early');
    await until(pr.number, (p) => p.state === 'waiting_for_build');
    await forge.close({ repository, number: pr.number });
    await until(pr.number, (p) => p.state === 'stopped');
    await publish(pr.headSha);
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    expect(await compositionsOf(pr.number)).toEqual([]);
    expect((await previewOf(pr.number))?.state).toBe('stopped');
  });

  it('a closed unlabelled pull request never gets a record at all', async () => {
    const pr = await open('feature-unlabelled', []);
    await forge.close({ repository, number: pr.number });
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    expect(await previewOf(pr.number)).toBeUndefined();
  });

  it('stop suppresses automation; restart gives a fresh URL and TTL; a closed pull request cannot restart', async () => {
    const pr = await open('feature-restart');
    await publish(pr.headSha);
    const first = await until(pr.number, (p) => p.state === 'ready');

    const stopped = await http.post(`/v1/forge/previews/${first.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.automation).toBe('suppressed');
    await until(pr.number, (p) => p.state === 'stopped');
    // The label is still there: automation stays out of the way until a restart.
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    expect((await previewOf(pr.number))?.state).toBe('stopped');

    const restarted = await http.post(`/v1/forge/previews/${first.id}/restart`);
    expect(restarted.status).toBe(200);
    const fresh = await until(
      pr.number,
      (p) => p.state === 'ready' && p.composition_id !== first.composition_id,
    );
    expect(fresh.url).not.toBe(first.url);
    expect(Date.parse(fresh.expires_at ?? '')).toBeGreaterThan(Date.parse(first.expires_at ?? ''));

    await forge.close({ repository, number: pr.number });
    await until(pr.number, (p) => p.state === 'stopped');
    const refused = await http.post(`/v1/forge/previews/${first.id}/restart`);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('preview_not_restartable');
    expect(refused.body.errors[0].code).toBe('pull_request_closed');
  });

  it('a generic DELETE of a preview records a stop', async () => {
    const pr = await open('feature-deleted');
    await publish(pr.headSha);
    const ready = await until(pr.number, (p) => p.state === 'ready');
    const deleted = await http.delete(`/v1/compositions/${ready.composition_id}`);
    expect(deleted.status).toBe(202);
    const stopped = await until(pr.number, (p) => p.state === 'stopped');
    expect(stopped.automation).toBe('suppressed');
  });
});

describe('webhook ingestion', () => {
  const deliver = async (id: string, body: string, signature: string, event = 'pull_request') =>
    fetch(`${stack.apiUrl}/webhooks/forge`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': event,
        'x-github-delivery': id,
        'x-hub-signature-256': signature,
      },
      body,
    });

  const labelledPayload = (number: number) =>
    JSON.stringify({
      action: 'labeled',
      number,
      label: { name: 'preview' },
      pull_request: { number },
      repository: { full_name: repository },
    });

  it('a duplicate delivery acts once', async () => {
    const pr = await open('feature-duplicate', []);
    await forge.label({ repository, number: pr.number, label: 'preview' });
    await publish(pr.headSha);
    const body = labelledPayload(pr.number);
    const signature = await sign(forge.webhookSecret, body);
    const id = crypto.randomUUID();
    const answers = await Promise.all([deliver(id, body, signature), deliver(id, body, signature)]);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    await until(pr.number, (p) => p.state === 'ready');
    const again = await deliver(id, body, signature);
    expect(again.status).toBe(202);
    expect(((await again.json()) as { duplicate: boolean }).duplicate).toBe(true);
    expect(await compositionsOf(pr.number)).toHaveLength(1);
  });

  it('1,000 mutated signatures: 1,000 × 401, nothing stored', async () => {
    const body = labelledPayload(999);
    const good = await sign(forge.webhookSecret, body);
    const ids: string[] = [];
    const statuses: number[] = [];
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const id = `mutated-${batch}-${i}`;
          ids.push(id);
          const position = 7 + ((batch * 50 + i) % 64);
          const flipped = good[position] === 'a' ? 'b' : 'a';
          const signature = `${good.slice(0, position)}${flipped}${good.slice(position + 1)}`;
          return (await deliver(id, body, signature)).status;
        }),
      );
      statuses.push(...answers);
    }
    expect(statuses.filter((s) => s === 401)).toHaveLength(1000);
    const stored = await Promise.all(ids.map((id) => stack.stores.forgeStore.getDelivery(id)));
    expect(stored.filter((d) => d !== null)).toEqual([]);
    expect((await deliver('unsigned', body, '')).status).toBe(401);
  });

  it('answers 202 in under a second with the queue down, and processes the delivery once it is back', async () => {
    const { pullRequest, deliveries: opened } = await forge.open({ repository, head: 'feature-queue-down' });
    const pr = pullRequest as NonNullable<typeof pullRequest>;
    await processed(opened);
    await publish(pr.headSha);
    queueDown = true;
    try {
      const started = performance.now();
      const { deliveries } = await forge.label({ repository, number: pr.number, label: 'preview' });
      expect(deliveries.map((d) => d.statusCode)).toEqual([202]);
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      queueDown = false;
    }
    expect(await previewOf(pr.number)).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await stack.scheduler.run(Resources.ScheduleName.ForgeDispatchSweep);
    await until(pr.number, (p) => p.state === 'ready');
  });

  it('a dropped webhook is repaired by the reconciliation, which also asks for a redelivery', async () => {
    forge.setFaults({ webhookFailures: 2 });
    const pr = await open('feature-dropped');
    await publish(pr.headSha);
    expect(await previewOf(pr.number)).toBeUndefined();
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    await until(pr.number, (p) => p.state === 'ready' || p.state === 'deploying');
    const { body: status } = await http.get('/v1/forge/status');
    expect(status.reconciliation.drift_found).toBeGreaterThanOrEqual(1);
    expect(status.reconciliation.redelivered).toBeGreaterThanOrEqual(1);
    expect(status.app).toMatchObject({ configured: true, private_key: 'valid', webhook_secret: 'present' });
    expect(JSON.stringify(status)).not.toContain(forge.webhookSecret);
    await until(pr.number, (p) => p.state === 'ready');
  });

  it('a rate-limited delivery is deferred, shows in the status, and is processed after the reset', async () => {
    const pr = await open('feature-throttled', []);
    await publish(pr.headSha);
    forge.setFaults({ rateLimit: { count: 1, kind: 'secondary', retryAfterSeconds: 2 } });
    await forge.label({ repository, number: pr.number, label: 'preview' });
    const deadline = Date.now() + 10_000;
    let throttled = false;
    while (!throttled && Date.now() < deadline) {
      const { body } = await http.get('/v1/forge/status');
      throttled = body.rate_limits.some(
        (b: { throttled_until: string | null }) => b.throttled_until !== null,
      );
      if (!throttled) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(throttled).toBe(true);
    await until(pr.number, (p) => p.state === 'ready');
  });
});

describe('installation', () => {
  it('removing the repository from the installation stops its previews; adding it back starts them again', async () => {
    const pr = await open('feature-uninstall');
    await publish(pr.headSha);
    await until(pr.number, (p) => p.state === 'ready');
    await forge.uninstall({ target: repository });
    await until(pr.number, (p) => p.state === 'stopped');
    expect((await compositionsOf(pr.number)).every((c) => c.phase === 'destroying')).toBe(true);
    await forge.install({ repository });
    await until(pr.number, (p) => p.state === 'ready');
  });
});
