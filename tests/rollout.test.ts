import type { Stack } from '@svc/local';
import { type HttpClient, httpClient, startTestStack } from '@svc/local/testing';
import { gatewayFetch } from '@svc/local-cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let stack: Stack;
let http: HttpClient;
beforeAll(async () => {
  stack = await startTestStack();
  http = httpClient(stack.apiUrl);
});
afterAll(() => stack.stop());

const image = (component: string, tag: string) => `registry.example.com/demo/${component}:${tag}`;

async function waitFor(id: string, phases: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await http.get(`/v1/compositions/${id}`);
    if (phases.includes(body.phase)) return body;
    if (Date.now() > deadline)
      throw new Error(`composition ${id} still ${body.phase}: ${JSON.stringify(body.observed)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('rollout', () => {
  it('creates, becomes ready and routes keyed requests to the fork', async () => {
    const { body: created } = await http.post('/v1/compositions', {
      project: 'demo',
      baseline: 'staging',
      name: 'smoke',
      overrides: { 'service-c': { image: image('service-c', '2.0.0') } },
    });
    const ready = await waitFor(created.id, ['ready', 'failed']);
    expect(ready.phase).toBe('ready');
    expect(ready.observed_generation).toBe(1);
    expect(ready.endpoints.public.ready).toBe(true);
    const answer = await gatewayFetch(stack.gatewayUrl, ready.endpoints.public.url);
    const body = await answer.json();
    expect(JSON.stringify(body)).toContain(image('service-c', '2.0.0'));
  });
});
