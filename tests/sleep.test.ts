/**
 * Sleep and wake on the local stack (docs/sleep.md): a baseline with a short `sleep.after`, a
 * composition whose fork scales to zero when idle, woken by the first request (held and answered,
 * not dropped) or by a message on its isolated queue (delivered, not lost), and left asleep by a
 * link unfurler.
 */
import { ListTopicsCommand, PublishCommand } from '@aws-sdk/client-sns';
import { Resources } from '@svc/core';
import type { Stack } from '@svc/local';
import { demoManifest, image } from '@svc/local/demo';
import { type HttpClient, useChromium, useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { createComposition, imageOf, previewHops, waitForPhase, waitUntil } from './support/compositions.ts';
import { type Agent, stdioAgent } from './support/mcp.ts';
import { drainQueue } from './support/queues.ts';

let stack: Stack;
let http: HttpClient;
let topicArn: string;
useTestStack({ alongside: ensureBuilt }, async (started) => {
  ({ stack, http } = started);
  const manifest = demoManifest();
  for (const baseline of manifest.projects[0]?.baselines ?? []) baseline.sleep = { after: '5s' };
  const applied = await http.post('/v1/catalog/apply', manifest);
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
  const { Topics = [] } = await stack.clients.sns.send(new ListTopicsCommand({}));
  topicArn = Topics.find((t) => t.TopicArn?.endsWith(':demo-events'))?.TopicArn ?? '';
});

const forkReplicas = async (component: string, id: string) =>
  (await stack.cluster.getDeployment('staging', `${component}-${id}`))?.spec.replicas;

async function asleep(component: string, id: string) {
  await waitUntil(
    async () => (await forkReplicas(component, id)) === 0,
    20_000,
    `${component}'s fork at 0 replicas`,
  );
}

/** The composition as the sleep sweep records it, the sweep run at each poll rather than waited for. */
async function observed(id: string, state: 'awake' | 'sleeping') {
  await waitUntil(
    async () => {
      await stack.scheduler.run(Resources.ScheduleName.SleepSweep);
      return (await http.get(`/v1/compositions/${id}`)).body.sleep?.state === state;
    },
    20_000,
    `composition ${id} recorded ${state}`,
  );
}

const eventsOf = async (id: string, type: string) =>
  (
    (await http.get(`/v1/compositions/${id}/events`)).body.items as {
      type: string;
      at: string;
      data: unknown;
    }[]
  ).filter((e) => e.type === type);

describe('a composition whose baseline sleeps after 5s', () => {
  it('says so in its plan and its answer, then sleeps: its fork has 0 replicas, slept recorded once, TTL unmoved, diagnosis healthy and sleeping', async () => {
    const overrides = { 'service-b': { image: image('service-b', '2.0.0') } };
    const plan = await http.post('/v1/compositions/plan', { project: 'demo', name: 'plan', overrides });
    expect(plan.body.sleep).toEqual({ after: '5s' });
    const created = await createComposition(http, overrides);
    expect(created.sleep).toMatchObject({ state: 'awake', after: '5s' });
    await waitForPhase(http, created.id, ['ready']);
    await asleep('service-b', created.id);
    await observed(created.id, 'sleeping');
    await stack.scheduler.run(Resources.ScheduleName.SleepSweep);
    expect(await eventsOf(created.id, 'slept')).toHaveLength(1);
    expect((await http.get(`/v1/compositions/${created.id}`)).body.expires_at).toBe(created.expires_at);
    const diagnosis = await http.get(`/v1/compositions/${created.id}/diagnosis`);
    expect(diagnosis.body).toMatchObject({ state: 'healthy', verification: { freshness: 'fresh' } });
    expect(diagnosis.body.notes).toEqual([expect.objectContaining({ code: 'sleeping' })]);
  });

  it('wakes on the first request through the preview URL, which is held and answered by the fork', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.1.0') } });
    const ready = await waitForPhase(http, created.id, ['ready']);
    await asleep('service-b', created.id);
    await observed(created.id, 'sleeping');
    const { status, hops } = await previewHops(stack, ready.endpoints.public.url);
    expect(status).toBe(200);
    expect(imageOf(hops, 'service-b')).toBe(image('service-b', '2.1.0'));
    expect(await forkReplicas('service-b', created.id)).toBeGreaterThan(0);
    await observed(created.id, 'awake');
    expect(await eventsOf(created.id, 'woke')).toEqual([
      expect.objectContaining({ data: { cause: 'request' } }),
    ]);
  });

  it('stays asleep for a link unfurler, which gets the baseline', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.2.0') } });
    const ready = await waitForPhase(http, created.id, ['ready']);
    await asleep('service-b', created.id);
    const response = await gatewayFetch(stack.gatewayUrl, ready.endpoints.public.url, {
      headers: { 'user-agent': 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      routing_key: string | null;
      calls: { body: { image: string } }[];
    };
    expect(body.routing_key).toBeNull();
    expect(body.calls[0]?.body.image).toBe(image('service-b', '1.0.0'));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await forkReplicas('service-b', created.id)).toBe(0);
    await stack.scheduler.run(Resources.ScheduleName.SleepSweep);
    expect((await http.get(`/v1/compositions/${created.id}`)).body.sleep.state).toBe('sleeping');
    expect(await eventsOf(created.id, 'woke')).toEqual([]);
  });

  it('wakes on a message on its isolated queue, and the message waits there for the woken consumer', async () => {
    const created = await createComposition(
      http,
      { 'service-d': { image: image('service-d', '2.0.0') } },
      { message_isolation: true },
    );
    const ready = await waitForPhase(http, created.id, ['ready']);
    const queueUrl = ready.message_subscriptions[0].queue_url as string;
    await asleep('service-d', created.id);
    await observed(created.id, 'sleeping');
    await stack.clients.sns.send(
      new PublishCommand({
        TopicArn: topicArn,
        Message: 'for the sleeping preview',
        MessageAttributes: { preview_route: { DataType: 'String', StringValue: created.id } },
      }),
    );
    await waitUntil(
      async () => ((await forkReplicas('service-d', created.id)) ?? 0) > 0,
      10_000,
      'the fork woken',
    );
    await stack.scheduler.run(Resources.ScheduleName.SleepSweep);
    expect(await drainQueue(stack.clients.sqs, queueUrl, 1)).toEqual(['for the sleeping preview']);
    await observed(created.id, 'awake');
    expect(await eventsOf(created.id, 'woke')).toEqual([
      expect.objectContaining({ data: { cause: 'message' } }),
    ]);
  });

  describe('woken by command', () => {
    let agent: Agent | undefined;
    const mcp = async () => {
      agent ??= await stdioAgent(stack.apiUrl, { args: ['--allow-writes'] });
      return agent;
    };
    afterAll(() => agent?.close());

    it('svc composition wake: 202 waking, woke recorded once with cause command, its fork held up, then asleep again after after', async () => {
      const created = await createComposition(http, { 'service-c': { image: image('service-c', '2.0.0') } });
      await waitForPhase(http, created.id, ['ready']);
      await asleep('service-c', created.id);
      await observed(created.id, 'sleeping');
      const agent = await mcp();
      const woken = await svc(['composition', 'wake', created.id], { apiUrl: stack.apiUrl });
      expect(woken.code, woken.stderr).toBe(0);
      expect(woken.json()).toMatchObject({ id: created.id, sleep: { state: 'waking', after: '5s' } });
      // Left as it is: waking still, or awake already if the sweep saw its fork ready meanwhile.
      const again = await http.post(`/v1/compositions/${created.id}/wake`, {});
      expect(again.status).toBe(200);
      expect(['waking', 'awake']).toContain(again.body.sleep.state);
      const tool = await agent.call('composition_wake', { id: created.id });
      expect(tool.isError, tool.text).toBe(false);
      expect(['waking', 'awake']).toContain(tool.structured.sleep.state);
      const held = async () => {
        const object = await stack.cluster.get({
          apiVersion: 'keda.sh/v1alpha1',
          kind: 'ScaledObject',
          namespace: 'staging',
          name: `service-c-${created.id}`,
        });
        return {
          minimum: (object?.spec as { minReplicaCount?: number } | undefined)?.minReplicaCount,
          until: object?.metadata.annotations?.['preview.svc/awake-until'],
        };
      };
      // The worker's wake job, or the sweep: minimum 1 and the annotation, in one patch.
      await waitUntil(async () => (await held()).minimum === 1, 5_000, 'the ScaledObject held at 1');
      expect((await held()).until).toEqual(expect.any(String));
      await waitUntil(
        async () => ((await forkReplicas('service-c', created.id)) ?? 0) > 0,
        10_000,
        'the fork woken',
      );
      expect(await eventsOf(created.id, 'woke')).toEqual([
        expect.objectContaining({ data: { cause: 'command' } }),
      ]);
      // No request comes: once `after` has passed since the command the sweep lets it go, and it sleeps.
      await observed(created.id, 'sleeping');
      expect(await forkReplicas('service-c', created.id)).toBe(0);
      expect(await eventsOf(created.id, 'slept')).toHaveLength(2);
      expect(await held()).toEqual({ minimum: 0, until: undefined });
    });

    it('a composition that never sleeps answers 409 sleep_not_enabled: the API, exit 4 from svc, an error from the MCP tool', async () => {
      const created = await createComposition(http, {});
      expect(created.sleep).toBeNull();
      const woken = await http.post(`/v1/compositions/${created.id}/wake`, {});
      expect(woken.status).toBe(409);
      expect(woken.body.code).toBe('sleep_not_enabled');
      const cli = await svc(['composition', 'wake', created.id], { apiUrl: stack.apiUrl });
      expect(cli.code).toBe(4);
      expect(cli.problem()).toMatchObject({ status: 409, code: 'sleep_not_enabled' });
      const tool = await (await mcp()).call('composition_wake', { id: created.id });
      expect(tool.isError).toBe(true);
      expect(tool.text).toContain('sleep_not_enabled');
    });
  });

  describe('the installation check, now that a baseline sleeps', () => {
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers inspected by assertions
    type Check = { id: string; status: string; message: string; evidence: Record<string, any> };
    const kedaChecks = async () => {
      const answer = await http.post('/v1/installation/check', {});
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const checks = answer.body.checks as Check[];
      return Object.fromEntries(checks.filter((c) => c.id.startsWith('keda')).map((c) => [c.id, c]));
    };
    const fault = async (body: unknown) => {
      const response = await fetch(`${stack.clusterUrl}/_faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(201);
    };
    afterEach(async () => {
      await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
    });

    it("verifies KEDA's CRDs and the interceptor Service through the API's own identity", async () => {
      const checks = await kedaChecks();
      expect(Object.keys(checks).sort()).toEqual(['keda-interceptor:local', 'keda:local']);
      expect(checks['keda:local']).toMatchObject({
        status: 'passed',
        message:
          'cluster "local" serves scaledobjects.keda.sh and interceptorroutes.http.keda.sh, which the sleeping baselines demo/staging, demo/staging-sleepy need',
        evidence: { sleeping_baselines: ['demo/staging', 'demo/staging-sleepy'] },
      });
      expect(checks['keda-interceptor:local']).toMatchObject({
        status: 'passed',
        evidence: { service: 'keda/keda-add-ons-http-interceptor-proxy', ports: [8080] },
      });
    });

    it("fails, saying what to install, when the add-on's InterceptorRoute is not served", async () => {
      await fault({ type: 'fail', status: 404, match: { path: '/apis/http.keda.sh' } });
      const checks = await kedaChecks();
      expect(checks['keda:local']).toMatchObject({
        status: 'failed',
        evidence: { served: { 'keda.sh/v1alpha1': ['scaledobjects'], 'http.keda.sh/v1beta1': null } },
      });
      expect(checks['keda:local']?.message).toBe(
        'cluster "local" does not serve interceptorroutes.http.keda.sh (an add-on before 0.14 serves HTTPScaledObjects only), which the sleeping baselines demo/staging, demo/staging-sleepy need: install KEDA 2.x and its HTTP add-on 0.14 or later in namespace keda (docs/deploy.md, "KEDA and its HTTP add-on")',
      );
    });

    it('fails when the interceptor Service is missing', async () => {
      await fault({
        type: 'fail',
        status: 404,
        match: { path: '/api/v1/namespaces/keda/services/keda-add-ons-http-interceptor-proxy' },
      });
      const checks = await kedaChecks();
      expect(checks['keda-interceptor:local']).toMatchObject({ status: 'failed', evidence: { ports: null } });
      expect(checks['keda-interceptor:local']?.message).toMatch(
        /^Service keda\/keda-add-ons-http-interceptor-proxy on cluster "local" not found: install KEDA/,
      );
    });
  });

  describe('the console', () => {
    const chromium = useChromium();

    it('shows the sleep state since when and the pod-hours saved, and follows a wake without a reload', async () => {
      const created = await createComposition(http, { 'service-c': { image: image('service-c', '2.1.0') } });
      await waitForPhase(http, created.id, ['ready']);
      await asleep('service-c', created.id);
      await observed(created.id, 'sleeping');
      const page = await chromium.newPage();
      await page.goto(`${stack.apiUrl}/console/compositions/${created.id}`);
      expect(await page.locator('[data-sleep-state]').getAttribute('data-sleep-state')).toBe('sleeping');
      expect(
        await page.getByRole('definition').filter({ hasText: 'without a request or message' }).textContent(),
      ).toMatch(/sleeping\s+since (just now|.*ago)\s+\(after 5s without a request or message\)/);
      const saved = async () =>
        Number(await page.locator('[data-pod-hours-saved]').getAttribute('data-pod-hours-saved'));
      const asleepFor = await saved();
      expect(asleepFor).toBeGreaterThan(0);
      // One fork asleep since the slept event: its hours, as the events say.
      const [slept] = await eventsOf(created.id, 'slept');
      const since = Date.parse(slept?.at ?? '');
      expect(asleepFor).toBeLessThanOrEqual((Date.now() - since) / 3_600_000);
      expect((await http.post(`/v1/compositions/${created.id}/wake`, {})).status).toBe(202);
      // The live part refreshes by itself: waking now, the saving frozen at the wake.
      await page.waitForSelector('[data-sleep-state=waking], [data-sleep-state=awake]', { timeout: 10_000 });
      const [woke] = await eventsOf(created.id, 'woke');
      const frozen = (Date.parse(woke?.at ?? '') - since) / 3_600_000;
      await waitUntil(
        async () => Math.abs((await saved()) - frozen) < 1e-9,
        10_000,
        'the saving frozen at the wake',
      );
    });
  });
});
