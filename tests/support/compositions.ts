import { Checks } from '@svc/core';
import type { Stack } from '@svc/local';
import type { HttpClient } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { expect } from 'vitest';

export async function createComposition(
  http: HttpClient,
  overrides: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const { status, body } = await http.post('/v1/compositions', {
    project: 'demo',
    baseline: 'staging',
    name: 'e2e',
    overrides,
    ...extra,
  });
  expect(status, JSON.stringify(body)).toBe(202);
  return body;
}

/** Polls the composition until it reaches one of `phases`; the message says where it got stuck. */
export async function waitForPhase(http: HttpClient, id: string, phases: string[], timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await http.get(`/v1/compositions/${id}`);
    if (phases.includes(body.phase)) return body;
    if (Date.now() > deadline) {
      const events = await http.get(`/v1/compositions/${id}/events?limit=8`);
      const recent = (events.body.items ?? []).map(
        (e: { at: string; type: string; message: string }) => `${e.at} ${e.type}: ${e.message}`,
      );
      throw new Error(
        `composition ${id} is ${body.phase}, not ${phases.join('|')}; latest events:\n${recent.join('\n')}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** GETs a preview URL through the local gateway and flattens the workloads' hop report. */
export async function previewHops(
  stack: Stack,
  url: string,
): Promise<{ status: number; hops: Checks.Hop[] }> {
  const response = await gatewayFetch(stack.gatewayUrl, url);
  const body = await response.json().catch(() => null);
  return { status: response.status, hops: Checks.hopsOf(body) ?? [] };
}

export function imageOf(hops: Checks.Hop[], component: string): string | undefined {
  return hops.find((h) => h.component === component)?.image;
}

export async function waitUntil(
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
