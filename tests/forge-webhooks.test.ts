/**
 * Webhooks as GitHub sends them: every payload of @octokit/webhooks-examples (GitHub's own, 58
 * event types), signed with the app's secret and posted as JSON and as a form; an installation
 * suspended and unsuspended through the local forge; and the delivery list an operator reads
 * (`GET /v1/forge/deliveries`, `svc pr-preview deliveries`).
 */

import examples from '@octokit/webhooks-examples';
import { sign } from '@octokit/webhooks-methods';
import { Auth, type Forge, Resources } from '@svc/core';
import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, useTestStack } from '@svc/local/testing';
import type { LocalForge } from '@svc/local-forge';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';

const repository = 'demo-org/service-b';
let stack: Stack;
let http: HttpClient;
let forge: LocalForge;
let adminToken: string;
let token: (name: string, access?: Auth.Role | Auth.Grant[]) => Promise<string>;

// Token mode: the delivery list is checked against each caller's grants.
useTestStack(
  {
    alongside: ensureBuilt,
    authMode: Auth.AuthMode.Token,
    forge: { writeIntervalMs: 0 },
    forgeSettings: { pollSeconds: 1, dispatchGraceSeconds: 1 },
  },
  async (environment) => {
    stack = environment.stack;
    forge = stack.forge as LocalForge;
    token = environment.token;
    adminToken = await token('admin', Auth.Role.Admin);
    http = httpClient(stack.apiUrl, { authorization: `Bearer ${adminToken}` });
  },
);

interface Example {
  event: string;
  payload: { action?: string };
}

const allExamples: Example[] = (
  examples as unknown as { name: string; examples: { action?: string }[] }[]
).flatMap((definition) => definition.examples.map((payload) => ({ event: definition.name, payload })));

const form = (json: string) => new URLSearchParams({ payload: json }).toString();

async function deliver(
  id: string,
  event: string,
  body: string,
  contentType = 'application/json',
  signature?: string,
): Promise<Response> {
  return fetch(`${stack.apiUrl}/webhooks/forge`, {
    method: 'POST',
    headers: {
      'content-type': contentType,
      'user-agent': 'GitHub-Hookshot/a8b2e3f',
      'x-github-event': event,
      'x-github-delivery': id,
      'x-hub-signature-256': signature ?? (await sign(forge.webhookSecret, body)),
    },
    body,
  });
}

/** Runs `work` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T, index: number) => Promise<R>) {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) {
    results.push(
      ...(await Promise.all(items.slice(start, start + width).map((item, i) => work(item, start + i)))),
    );
  }
  return results;
}

async function previewOf(number: number): Promise<Forge.PreviewView | undefined> {
  const { body } = await http.get('/v1/forge/previews?project=demo&limit=200');
  return (body.items as Forge.PreviewView[]).find((p) => p.pull_request.number === number);
}

async function until(number: number, done: (preview: Forge.PreviewView) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const preview = await previewOf(number);
    if (preview && done(preview)) return preview;
    if (Date.now() > deadline) throw new Error(`preview of #${number} is ${JSON.stringify(preview)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitFor<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('waited in vain');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function openLabelled(head: string) {
  const { pullRequest } = await forge.open({ repository, head, labels: ['preview'] });
  if (!pullRequest) throw new Error('the forge opened no pull request');
  return pullRequest;
}

describe("GitHub's example payloads", () => {
  it(`accepts all ${allExamples.length} signed, as JSON and as a form: stored once each, none refused`, async () => {
    expect(allExamples.length).toBeGreaterThanOrEqual(300);
    expect(allExamples.filter((e) => e.event === 'projects_v2_item').length).toBeGreaterThan(0);
    const statuses = await inBatches(allExamples, 16, async ({ event, payload }, i) => {
      const json = JSON.stringify(payload);
      const [asJson, asForm] = await Promise.all([
        deliver(`example-json-${i}`, event, json),
        deliver(`example-form-${i}`, event, form(json), 'application/x-www-form-urlencoded'),
      ]);
      return [`${event}: ${asJson.status}`, `${event}: ${asForm.status}`];
    });
    expect(statuses.flat().filter((s) => !s.endsWith(': 202'))).toEqual([]);

    const stored = await Promise.all(
      allExamples.map(async (_, i) => [
        await stack.stores.forgeStore.getDelivery(`example-json-${i}`),
        await stack.stores.forgeStore.getDelivery(`example-form-${i}`),
      ]),
    );
    for (const [i, [asJson, asForm]] of stored.entries()) {
      const { event, payload } = allExamples[i] as Example;
      expect(asJson, `${event}.${payload.action}`).toMatchObject({ event, action: payload.action ?? null });
      // The form carries the same payload: the same summary, only the id differs.
      expect({ ...asForm, id: '' }).toMatchObject({
        ...asJson,
        id: '',
        received_at: expect.any(String),
        state: expect.any(String),
        due_at: asJson?.due_at === null ? null : expect.any(String),
        finished_at: asJson?.finished_at === null ? null : expect.any(String),
      });
    }
    const v2 = stored.flat().filter((d) => d?.event === 'projects_v2_item');
    expect(v2.map((d) => d?.state)).toEqual(v2.map(() => 'ignored'));
  });

  it('refuses a form without payload (422 naming it), a form with a bad signature (401), malformed JSON (400)', async () => {
    const missing = await deliver(
      'form-missing',
      'pull_request',
      'other=1',
      'application/x-www-form-urlencoded',
    );
    expect(missing.status).toBe(422);
    expect((await missing.json()) as object).toMatchObject({
      code: 'validation_failed',
      errors: [{ path: 'payload' }],
    });
    const body = form(JSON.stringify({ action: 'opened' }));
    const forged = await sign(forge.webhookSecret, JSON.stringify({ action: 'opened' }));
    const wrong = await deliver(
      'form-forged',
      'pull_request',
      body,
      'application/x-www-form-urlencoded',
      forged,
    );
    expect(wrong.status).toBe(401);
    const broken = await deliver(
      'form-broken',
      'pull_request',
      form('{not json'),
      'application/x-www-form-urlencoded',
    );
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { code: string }).code).toBe('malformed_json');
    for (const id of ['form-missing', 'form-forged', 'form-broken'])
      expect(await stack.stores.forgeStore.getDelivery(id)).toBeNull();
  });

  it('a real installation.suspend for an installation the forge does not know changes nothing and is processed', async () => {
    const suspend = allExamples.find(
      (e) => e.event === 'installation' && e.payload.action === 'suspend',
    ) as Example;
    expect(
      (await deliver('example-suspend-alone', 'installation', JSON.stringify(suspend.payload))).status,
    ).toBe(202);
    const deadline = Date.now() + 10_000;
    while ((await stack.stores.forgeStore.getDelivery('example-suspend-alone'))?.state !== 'processed') {
      if (Date.now() > deadline) throw new Error('the suspend delivery was not processed');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await stack.stores.forgeStore.suspensions()).toEqual([]);
  });
});

describe('a GitHub App set to the form content type', () => {
  it('gets its pull request a preview, as with JSON', async () => {
    forge.setWebhookContentType('form');
    try {
      const pr = await openLabelled('feature-form');
      const ready = await until(pr.number, (p) => p.state === 'ready');
      expect(ready.pull_request.head_sha).toBe(pr.headSha);
    } finally {
      forge.setWebhookContentType('json');
    }
  });
});

describe('a suspended installation', () => {
  it('stops its previews with the reason and starts none; unsuspended, the preview comes back', async () => {
    const pr = await openLabelled('feature-suspend');
    const ready = await until(pr.number, (p) => p.state === 'ready');

    const { deliveries } = await forge.suspend({ account: 'demo-org' });
    expect(deliveries.map((d) => [d.event, d.action, d.statusCode])).toEqual([
      ['installation', 'suspend', 202],
    ]);
    const stopped = await until(pr.number, (p) => p.state === 'stopped');
    expect(stopped.last_error).toEqual({
      code: 'installation_suspended',
      message: "the app's installation on demo-org is suspended",
    });
    expect(stopped.automation).toBe('active');
    const { body: old } = await http.get(`/v1/compositions/${ready.composition_id}`);
    expect(['destroying', 'destroyed']).toContain(old.phase);

    const restart = await http.post(`/v1/forge/previews/${ready.id}/restart`);
    expect(restart.status).toBe(409);
    expect(restart.body.errors[0].code).toBe('installation_suspended');
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    expect((await previewOf(pr.number))?.state).toBe('stopped');

    await forge.unsuspend({ account: 'demo-org' });
    const back = await until(pr.number, (p) => p.state === 'ready');
    expect(back.composition_id).not.toBe(ready.composition_id);
    expect(back.last_error).toBeNull();
  });

  it('a suspension GitHub never told the service of is found by the reconciliation, and so is the unsuspension', async () => {
    const pr = await openLabelled('feature-suspend-missed');
    await until(pr.number, (p) => p.state === 'ready');
    // Nothing reaches the service (and nothing is left to redeliver): only the reconciliation's
    // reading of the installations can notice the suspension, and then the unsuspension.
    const silently = async (change: () => Promise<unknown>) => {
      forge.setWebhookUrl(null);
      try {
        await change();
      } finally {
        forge.setWebhookUrl(`${stack.apiUrl}/webhooks/forge`);
      }
    };
    await silently(() => forge.suspend({ account: 'demo-org' }));
    expect((await previewOf(pr.number))?.state).toBe('ready');
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    await until(pr.number, (p) => p.state === 'stopped' && p.last_error?.code === 'installation_suspended');
    await silently(() => forge.unsuspend({ account: 'demo-org' }));
    await stack.scheduler.run(Resources.ScheduleName.ForgeReconcile);
    await until(pr.number, (p) => p.state === 'ready');
  });
});

describe('GET /v1/forge/deliveries and svc pr-preview deliveries', () => {
  it('lists what came in for a pull request, newest first, in pages, by repository', async () => {
    const pr = await openLabelled('feature-deliveries');
    await until(pr.number, (p) => p.state === 'ready');
    // The preview can be ready before its deliveries' own convergences have finished.
    const { status, body } = await waitFor(async () => {
      const page = await http.get(`/v1/forge/deliveries?repository=${repository}&limit=2`);
      const both = page.body.items?.every((d: Forge.DeliveryView) => d.state === 'processed');
      return both && page.body.items.length === 2 ? page : undefined;
    });
    expect(status).toBe(200);
    expect(body.next_cursor).toEqual(expect.any(String));
    const items = body.items as Forge.DeliveryView[];
    // Newest first; opened and labeled may share a millisecond, so either may come first then.
    expect(Date.parse(items[0]?.received_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(items[1]?.received_at ?? ''),
    );
    expect(items.map((d) => d.action).sort()).toEqual(['labeled', 'opened']);
    const labeled = items.find((d) => d.action === 'labeled');
    expect(labeled).toMatchObject({
      event: 'pull_request',
      repository,
      number: pr.number,
      repositories: [],
      state: 'processed',
      error: null,
      due_at: null,
    });
    expect(labeled?.attempts).toBeGreaterThanOrEqual(1);
    expect(labeled?.outcome).toEqual([
      {
        project: 'demo',
        preview_id: expect.stringMatching(/^pr-/),
        state: expect.any(String),
        unwanted: null,
      },
    ]);
    expect(Date.parse(labeled?.finished_at ?? '')).toBeGreaterThanOrEqual(
      Date.parse(labeled?.received_at ?? ''),
    );
    const next = await http.get(
      `/v1/forge/deliveries?repository=${repository}&limit=2&after=${body.next_cursor}`,
    );
    expect(next.status).toBe(200);
    const ids = [...body.items, ...next.body.items].map((d: Forge.DeliveryView) => d.id);
    expect(new Set(ids).size).toBe(ids.length);

    // Why a pull request got no preview: no label, so nothing was made, and the delivery says why.
    const { pullRequest: bare, deliveries: sent } = await forge.open({
      repository,
      head: 'feature-no-label',
    });
    const opened = await waitFor(async () => {
      const page = await http.get(`/v1/forge/deliveries?repository=${repository}&limit=5`);
      const found = (page.body.items as Forge.DeliveryView[]).find((d) => d.id === sent[0]?.guid);
      return found?.state === 'processed' ? found : undefined;
    });
    expect(opened).toMatchObject({ action: 'opened', number: bare?.number });
    expect(opened.outcome).toEqual([
      { project: 'demo', preview_id: null, state: null, unwanted: 'label_missing' },
    ]);

    const other = await http.get('/v1/forge/deliveries?repository=Codertocat/Hello-World&limit=200');
    expect(other.body.items.length).toBeGreaterThan(0);
    // No policy names that repository: processed, and no project decided anything.
    expect(
      other.body.items
        .filter((d: Forge.DeliveryView) => d.state === 'processed')
        .map((d: Forge.DeliveryView) => d.outcome),
    ).toContainEqual([]);
    expect(
      other.body.items.every(
        (d: Forge.DeliveryView) =>
          d.repository === 'Codertocat/Hello-World' || d.repositories.includes('Codertocat/Hello-World'),
      ),
    ).toBe(true);

    const cli = await svc(['pr-preview', 'deliveries', '--repository', repository, '--limit', '1'], {
      apiUrl: stack.apiUrl,
      env: { SVC_API_TOKEN: adminToken },
    });
    expect(cli.code, cli.stderr).toBe(0);
    const newest = await http.get(`/v1/forge/deliveries?repository=${repository}&limit=1`);
    expect(cli.json().items).toEqual(newest.body.items);
    const bad = await svc(['pr-preview', 'deliveries', '--repository', 'not a repo'], {
      apiUrl: stack.apiUrl,
      env: { SVC_API_TOKEN: adminToken },
    });
    expect(bad.code).toBe(2);
    expect(bad.problem().errors[0].path).toBe('--repository');
  });

  it("shows a project's viewer only its projects' repositories, refuses other projects and bad filters", async () => {
    const viewer = httpClient(stack.apiUrl, {
      authorization: `Bearer ${await token('deliveries-viewer', [{ role: 'viewer', project: 'demo', repository: null }])}`,
    });
    const seen = await viewer.get('/v1/forge/deliveries?limit=200');
    expect(seen.status).toBe(200);
    const items = seen.body.items as Forge.DeliveryView[];
    expect(items.length).toBeGreaterThan(0);
    const demoRepository = (name: string) => name.toLowerCase() === repository;
    expect(
      items.every(
        (d) => (d.repository !== null && demoRepository(d.repository)) || d.repositories.some(demoRepository),
      ),
    ).toBe(true);
    expect(items.flatMap((d) => d.repositories).every(demoRepository)).toBe(true);
    expect((await viewer.get('/v1/forge/deliveries?repository=Codertocat/Hello-World')).body.items).toEqual(
      [],
    );
    expect((await viewer.get('/v1/forge/deliveries?project=demo&limit=1')).status).toBe(200);

    // Past 100 repositories the filter runs after the read: the same deliveries, nothing lost.
    const policy = {
      enabled: false,
      trigger_label: 'preview',
      baseline: 'staging',
      components: ['service-b'],
    };
    for (let i = 0; i < 100; i++) {
      const path = `/v1/projects/demo/repositories/${encodeURIComponent(`demo-org/extra-${i}`)}/preview-policy`;
      expect((await http.put(path, policy)).status).toBe(201);
    }
    const many = await viewer.get('/v1/forge/deliveries?limit=200');
    expect(many.body.items.map((d: Forge.DeliveryView) => d.id)).toEqual(items.map((d) => d.id));

    const hidden = await viewer.get('/v1/forge/deliveries?project=elsewhere');
    expect(hidden.status).toBe(404);
    const badRepository = await http.get('/v1/forge/deliveries?repository=nope');
    expect(badRepository.status).toBe(400);
    expect(badRepository.body).toMatchObject({ code: 'invalid_query', errors: [{ path: 'repository' }] });
    expect((await http.get('/v1/forge/deliveries?limit=0')).status).toBe(400);
    expect((await http.get('/v1/forge/deliveries?after=forged')).status).toBe(400);
    expect((await httpClient(stack.apiUrl).get('/v1/forge/deliveries')).status).toBe(401);
    const publisher = httpClient(stack.apiUrl, {
      authorization: `Bearer ${await token('deliveries-ci', [{ role: 'publisher', project: 'demo', repository: null }])}`,
    });
    expect((await publisher.get('/v1/forge/deliveries?project=demo')).status).toBe(403);
  });
});
