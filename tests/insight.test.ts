import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, previewHops, waitForPhase } from './support/compositions.ts';

let stack: Stack;
let http: HttpClient;
let ready: { id: string; endpoints: { public: { url: string } } };
useTestStack({ workerSettings: { progressDeadlineSeconds: 2 } }, async (started) => {
  ({ stack, http } = started);
  const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
  ready = await waitForPhase(http, created.id, ['ready']);
  for (let i = 0; i < 5; i++) await previewHops(stack, ready.endpoints.public.url);
});

const logs = (component: string, query = '') =>
  http.get(`/v1/compositions/${ready.id}/components/${component}/logs${query ? `?${query}` : ''}`);

describe('log snapshots', () => {
  it("reads an overridden component from its fork's pods only", async () => {
    const { status, body } = await logs('service-b');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      component: 'service-b',
      source: 'override',
      composition_filtered: true,
      partial: false,
    });
    expect(body.streams.length).toBeGreaterThan(0);
    for (const stream of body.streams) {
      expect(stream.pod).toContain(ready.id);
      expect(stream.container).toBe('app');
      expect(stream.text).toMatch(/^\d{4}-\d{2}-\d{2}T/m);
    }
  });

  it('reads an inherited component from the shared baseline, never from a fork', async () => {
    const { body } = await logs('service-a');
    expect(body).toMatchObject({ source: 'shared-baseline', composition_filtered: false });
    expect(body.streams.length).toBeGreaterThan(0);
    for (const stream of body.streams) expect(stream.pod).not.toContain(ready.id);
  });

  it('keeps tail_lines per pod and says when it cut, per stream and overall', async () => {
    const { body } = await logs('service-b', 'tail_lines=2');
    for (const stream of body.streams) {
      expect(stream.text.trim().split('\n')).toHaveLength(2);
      expect(stream.truncated).toBe(true);
    }
    expect(body.truncated).toBe(true);
    expect(body.message).toContain('cut at a limit');
  });

  it("says why the cluster could not be read in a short cause, not the client's raw answer", async () => {
    await fetch(`${stack.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'deny', match: { verb: 'list', resource: 'pods' } }),
    });
    try {
      const { status, body } = await logs('service-b');
      expect(status).toBe(200);
      expect(body).toMatchObject({
        message: 'cluster "local" could not be read: access denied (HTTP 403)',
        streams: [],
        partial: true,
      });
    } finally {
      await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
    }
  });

  it('caps the total bytes with max_bytes and marks the snapshot truncated', async () => {
    const { body } = await logs('service-b', 'max_bytes=40');
    const total = body.streams.reduce((n: number, s: { text: string }) => n + Buffer.byteLength(s.text), 0);
    expect(total).toBeLessThanOrEqual(40);
    expect(body.truncated).toBe(true);
  });

  it('honours since_seconds', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const { body } = await logs('service-b', 'since_seconds=1');
    const all = await logs('service-b');
    const lines = (b: { streams: { text: string }[] }) =>
      b.streams
        .map((s) => s.text)
        .join('')
        .split('\n')
        .filter(Boolean).length;
    expect(lines(body)).toBeLessThan(lines(all.body));
  });

  it.each([
    ['tail_lines=1001', 'tail_lines'],
    ['tail_lines=0', 'tail_lines'],
    ['max_bytes=262145', 'max_bytes'],
    ['since_seconds=86401', 'since_seconds'],
    ['previous=maybe', 'previous'],
  ])('answers %s with 400 naming the parameter', async (query, name) => {
    const { status, body } = await logs('service-b', query);
    expect(status).toBe(400);
    expect(body.errors[0].path).toBe(name);
  });

  it('answers 404 for a component outside the composition', async () => {
    expect((await logs('service-z')).status).toBe(404);
  });

  it('reads the previous instance of a crash-looping fork', async () => {
    const created = await createComposition(http, {
      'service-d': { image: image('service-d', '3.0.0-crash') },
    });
    await waitForPhase(http, created.id, ['failed']);
    const { body } = await http.get(`/v1/compositions/${created.id}/components/service-d/logs?previous=true`);
    expect(body.source).toBe('override');
    expect(body.streams.map((s: { text: string }) => s.text).join('')).not.toBe('');
  });
});

describe('verification freshness', () => {
  it('is fresh after the rollout and stale, with the reason, once the baseline alone changes', async () => {
    const fresh = await http.get(`/v1/compositions/${ready.id}/verification`);
    expect(fresh.body.items[0]).toMatchObject({
      kind: 'routing',
      status: 'passed',
      freshness: 'fresh',
      generation: 1,
    });

    const deployment = await stack.cluster.getDeployment('staging', 'service-c');
    if (!deployment) throw new Error('no baseline service-c');
    const container = deployment.spec.template.spec.containers[0];
    if (!container) throw new Error('no container');
    await stack.cluster.apply({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'service-c', namespace: 'staging' },
      spec: {
        selector: deployment.spec.selector,
        template: {
          ...deployment.spec.template,
          spec: {
            ...deployment.spec.template.spec,
            containers: [{ ...container, image: image('service-c', '1.0.1') }],
          },
        },
      },
    });
    const stale = await http.get(`/v1/compositions/${ready.id}/verification`);
    expect(stale.body.items[0]).toMatchObject({
      freshness: 'stale',
      stale_reasons: ['image:service-c changed'],
    });
    expect((await http.get(`/v1/compositions/${ready.id}`)).body.generation).toBe(1);
    const diagnosis = await http.get(`/v1/compositions/${ready.id}/diagnosis`);
    expect(diagnosis.body.state).toBe('unverified');
    expect(diagnosis.body.notes).toContainEqual(expect.objectContaining({ code: 'verification_stale' }));
  });

  it('pages with limit and after, newest first', async () => {
    const created = await createComposition(http, { 'service-c': { image: image('service-c', '3.0.0') } });
    await waitForPhase(http, created.id, ['ready']);
    await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-c': { image: image('service-c', '3.1.0') } },
    });
    await waitForPhase(http, created.id, ['ready']);
    const first = await http.get(`/v1/compositions/${created.id}/verification?limit=1`);
    expect(first.body.items.map((c: { generation: number }) => c.generation)).toEqual([2]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await http.get(
      `/v1/compositions/${created.id}/verification?limit=1&after=${first.body.next_cursor}`,
    );
    expect(second.body.items.map((c: { generation: number }) => c.generation)).toEqual([1]);
    expect(second.body.next_cursor).toBeNull();
  });
});

describe('observability links', () => {
  it("resolves the baseline's templates for the composition", async () => {
    const { status, body } = await http.get(`/v1/compositions/${ready.id}/observability`);
    expect(status).toBe(200);
    const dashboard = body.links.find((l: { name: string }) => l.name === 'dashboard');
    expect(dashboard.component).toBeNull();
    expect(dashboard.url).toContain(`var-route=${ready.id}`);
    expect(dashboard.url).toContain('var-namespace=staging');
    expect(dashboard.url).not.toMatch(/\{[a-z_]+\}/);
    expect(
      body.links
        .filter((l: { name: string }) => l.name === 'logs')
        .map((l: { component: string }) => l.component),
    ).toEqual(['service-a', 'service-b', 'service-c', 'service-d']);
  });
});

describe('progress deadline', () => {
  it('fails a fork that makes no progress with progress_deadline_exceeded', async () => {
    const fault = await fetch(`${stack.clusterUrl}/_faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'freeze', namespace: 'staging', component: 'service-d' }),
    });
    expect(fault.status).toBeLessThan(300);
    try {
      const created = await createComposition(http, { 'service-d': { image: image('service-d', '4.0.0') } });
      const failed = await waitForPhase(http, created.id, ['failed', 'ready']);
      expect(failed.observed.blockers).toEqual([
        {
          code: 'progress_deadline_exceeded',
          message: expect.stringContaining('service-d'),
          component: 'service-d',
        },
      ]);
    } finally {
      await fetch(`${stack.clusterUrl}/_faults`, { method: 'DELETE' });
    }
  });
});
