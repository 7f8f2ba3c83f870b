/**
 * The first session of docs/cli.md ("First session"), run for real through the `svc` executable
 * against the API, the worker and the local cluster, so it cannot rot:
 *
 *   create → wait → endpoints → curl the preview URL → logs → update → wait → curl → diagnosis → destroy →
 *   get until destroyed
 *
 * `curl -s http://<id>.preview.localhost:8082/` in the docs is `gatewayFetch` here: Node does not
 * resolve `*.localhost`, so the request goes to the gateway's address with the preview host.
 * Every `svc` invocation below is one line of the docs, in the same order with the same arguments.
 */
import { Checks } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc, untilPhase } from '../packages/cli/test/helpers.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

/** service-b's image in the create, then in the update. */
const [firstImage, updatedImage] = [image('service-b', '2.0.0'), image('service-b', '2.1.0')];

/** One `svc` command of the session; it must succeed with nothing on stderr but the hint given. */
async function stepSaying(stderr: string, ...args: string[]) {
  const result = await svc(args, { apiUrl: stack.apiUrl });
  expect(result.code, `svc ${args.join(' ')}: ${result.stderr}`).toBe(0);
  expect(result.stderr).toBe(stderr);
  return result.json();
}

const step = (...args: string[]) => stepSaying('', ...args);

/** What create and update say on stderr when --image comes without --component. */
const choseServiceB =
  'svc: --image overrides service-b, the component of demo named like the image (--component chooses)\n';

/** `curl -s <url>`: the workloads' hop report flattened into the hops it went through. */
async function curl(url: string): Promise<{ status: number; body: unknown; hops: Checks.Hop[] }> {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const body = await response.json().catch(() => null);
  return { status: response.status, body, hops: Checks.hopsOf(body) ?? [] };
}

const serviceB = (hops: Checks.Hop[]) => hops.find((h) => h.component === 'service-b');

describe('first session', () => {
  it('create → wait → endpoints → curl → logs → update → wait → curl → diagnosis → destroy → destroyed', async () => {
    // svc composition create --name my-feature --image registry.example.com/demo/service-b:2.0.0
    const created = await stepSaying(
      choseServiceB,
      'composition',
      'create',
      '--name',
      'my-feature',
      '--image',
      firstImage,
    );
    expect(created).toMatchObject({
      phase: 'created',
      project: 'demo',
      baseline: 'staging',
      generation: 1,
      overrides: { 'service-b': { image: firstImage } },
    });
    const id: string = created.id;

    // svc composition wait "$id"
    expect(await step('composition', 'wait', id)).toMatchObject({
      id,
      phase: 'ready',
      generation: 1,
      observed_generation: 1,
      latest_operation: { kind: 'create', status: 'succeeded' },
    });

    // svc composition endpoints "$id"
    const endpoints = await step('composition', 'endpoints', id);
    const url = `http://${id}.preview.localhost:${new URL(stack.gatewayUrl).port}/`;
    expect(endpoints).toEqual({ id, phase: 'ready', endpoints: { public: { url, ready: true } } });

    // curl -s "http://$id.preview.localhost:8082/"
    const curledAt = Date.now();
    const first = await curl(url);
    expect(first.status).toBe(200);
    expect(first.hops.map((h) => h.component)).toEqual(['service-a', 'service-b', 'service-c', 'service-d']);
    expect(first.hops.every((h) => h.routing_key === id)).toBe(true);
    const served = serviceB(first.hops);
    expect(served?.image).toBe(firstImage);
    // Only service-b is overridden: the other hops are the shared baseline's.
    expect(first.hops.filter((h) => h.component !== 'service-b').map((h) => h.image)).toEqual(
      ['service-a', 'service-c', 'service-d'].map((c) => `registry.example.com/demo/${c}:1.0.0`),
    );

    // svc composition logs "$id"
    const logs = await step('composition', 'logs', id);
    expect(logs).toMatchObject({
      component: 'service-b',
      source: 'override',
      composition_filtered: true,
      partial: false,
      truncated: false,
    });
    for (const stream of logs.streams) expect(stream.text).toContain(`(image ${firstImage}, pod `);
    // The last line of the pod that served service-b is the request just made, keyed to this preview.
    const servingPod = logs.streams.find((s: { pod: string }) => s.pod === served?.pod);
    const lastLine: string = servingPod?.text.trimEnd().split('\n').at(-1) ?? '';
    const [at, ...request] = lastLine.split(' ');
    expect(request.join(' ')).toMatch(new RegExp(`^GET / 200 routing_key=${id} `));
    expect(Date.parse(`${at?.slice(0, 23)}Z`)).toBeGreaterThanOrEqual(curledAt - 1);

    // svc composition update "$id" --expected-generation 1 --image registry.example.com/demo/service-b:2.1.0
    const updated = await stepSaying(
      choseServiceB,
      'composition',
      'update',
      id,
      '--expected-generation',
      '1',
      '--image',
      updatedImage,
    );
    expect(updated).toMatchObject({
      id,
      generation: 2,
      phase: 'updating',
      overrides: { 'service-b': { image: updatedImage } },
      endpoints: { public: { url } },
    });

    // svc composition wait "$id"
    expect(await step('composition', 'wait', id)).toMatchObject({
      phase: 'ready',
      generation: 2,
      observed_generation: 2,
      latest_operation: { kind: 'update', status: 'succeeded' },
    });

    // curl -s "http://$id.preview.localhost:8082/"
    const second = await curl(url);
    expect(second.status).toBe(200);
    expect(serviceB(second.hops)?.image).toBe(updatedImage);

    // svc composition diagnosis "$id"
    expect(await step('composition', 'diagnosis', id)).toMatchObject({
      composition_id: id,
      state: 'healthy',
      observed_generation: 2,
      verification: { status: 'passed', freshness: 'fresh', generation: 2 },
    });

    // svc composition destroy "$id"
    expect(await step('composition', 'destroy', id)).toMatchObject({
      id,
      phase: 'destroying',
      latest_operation: { kind: 'destroy' },
    });

    // until svc composition get "$id" | jq -e '.phase == "destroyed"'; do sleep 1; done
    expect(await untilPhase(stack.apiUrl, id, ['destroyed'])).toMatchObject({
      endpoints: { public: { url, ready: false } },
      latest_operation: { kind: 'destroy', status: 'succeeded' },
    });
    const gone = await curl(url);
    expect(gone).toMatchObject({ status: 404, body: { error: 'no_route' }, hops: [] });
  });
});
