/**
 * Before a composition is ready its preview URL answers from the baseline (or the previous
 * generation): the gateway marks those answers `Preview-Rollout: pending; generation=N` (a
 * ResponseHeaderModifier on the public HTTPRoute), `svc composition endpoints` says so on stderr and
 * the MCP tool in its answer,
 * so a 200 from the baseline does not pass for "my change did not deploy". Through the real
 * worker, the local cluster's gateway and the real executable.
 */
import { Checks } from '@svc/core';
import type { Stack } from '@svc/local';
import { image } from '@svc/local/demo';
import { httpClient, useTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { describe, expect, it } from 'vitest';
import { ensureBuilt, svc } from '../packages/cli/test/helpers.ts';
import { createComposition, waitForPhase } from './support/compositions.ts';
import { stdioAgent } from './support/mcp.ts';

let stack: Stack;
useTestStack({ alongside: ensureBuilt }, (started) => {
  stack = started.stack;
});

const api = () => httpClient(stack.apiUrl);

/** The preview URL's answer: status, the pending mark, and the image service-b answered from. */
async function preview(url: string) {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const body = await response.json().catch(() => null);
  const hops = Checks.hopsOf(body) ?? [];
  return {
    status: response.status,
    pending: response.headers.get('preview-rollout'),
    serviceB: hops.find((h) => h.component === 'service-b')?.image ?? null,
  };
}

/** Reads until `ok` holds (10 s at most); the last read says where it stopped. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const endpoints = (id: string) => svc(['composition', 'endpoints', id], { apiUrl: stack.apiUrl });

describe('the preview URL before the composition is ready', () => {
  it('answers from the baseline marked pending, and endpoints says so; once ready, unmarked from the change', async () => {
    const slow = await createComposition(api(), { 'service-b': { image: image('service-b', '2.0.0-slow') } });
    const url: string = slow.endpoints.public.url;
    const before = await until(
      () => preview(url),
      (answer) => answer.status === 200,
    );
    expect(before).toEqual({
      status: 200,
      pending: 'pending; generation=1',
      serviceB: image('service-b', '1.0.0'),
    });
    const said = await endpoints(slow.id);
    expect(said.code, said.stderr).toBe(0);
    expect(said.json()).toMatchObject({
      phase: 'provisioning',
      endpoints: { public: { url, ready: false } },
    });
    expect(said.stderr).toContain(
      `svc: phase provisioning: until it is ready, ${url} answers from the baseline`,
    );
    expect(said.stderr).toContain('Preview-Rollout: pending');
    const agent = await stdioAgent(stack.apiUrl);
    try {
      const told = await agent.call('composition_endpoints', { id: slow.id });
      expect(told.text).toContain('Phase provisioning: its answers come from the baseline');
      expect(told.text).toContain('Preview-Rollout: pending');
    } finally {
      await agent.close();
    }

    const ready = await createComposition(api(), { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(api(), ready.id, ['ready']);
    expect(await preview(ready.endpoints.public.url)).toEqual({
      status: 200,
      pending: null,
      serviceB: image('service-b', '2.0.0'),
    });
    const quiet = await endpoints(ready.id);
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  it('while an update rolls out, answers from the previous generation marked with the new one', async () => {
    const created = await createComposition(api(), { 'service-b': { image: image('service-b', '2.0.0') } });
    await waitForPhase(api(), created.id, ['ready']);
    const updated = await api().patch(`/v1/compositions/${created.id}`, {
      expected_generation: 1,
      overrides: { 'service-b': { image: image('service-b', '3.0.0-slow') } },
    });
    expect(updated.status).toBe(202);
    const during = await until(
      () => preview(created.endpoints.public.url),
      (answer) => answer.pending !== null,
    );
    expect(during).toEqual({
      status: 200,
      pending: 'pending; generation=2',
      serviceB: image('service-b', '2.0.0'),
    });
  });

  it('a first rollout overriding the entry has no route until its fork is out, rather than the baseline', async () => {
    const entry = await createComposition(api(), {
      'service-a': { image: image('service-a', '2.0.0-slow') },
    });
    await until(
      () => api().get(`/v1/compositions/${entry.id}`),
      (read) => read.body.phase === 'provisioning',
    );
    const answer = await preview(entry.endpoints.public.url);
    expect(answer.status).toBe(404);
    expect(answer.pending).toBeNull();
  });
});
