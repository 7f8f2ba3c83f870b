/**
 * A page cursor is bound to its list and filter: one from another list, another filter or made by
 * hand is a 400 `invalid_query` naming `after`, never a DynamoDB error (issue 12).
 */
import type { Stack } from '@svc/local';
import { demoManifestWithoutMessaging } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { beforeAll, describe, expect, it } from 'vitest';

let stack: Stack;
let http: HttpClient;
useTestStack({ worker: false }, (started) => {
  ({ stack, http } = started);
});

async function create(project = 'demo') {
  const { status, body } = await http.post('/v1/compositions', {
    project,
    baseline: 'staging',
    name: 'paged',
    overrides: {},
  });
  expect(status, JSON.stringify(body)).toBe(202);
  return body as { id: string };
}

/** Two events per composition (accepted, destroy requested…): enough for a second page at limit 1. */
async function withEvents() {
  const composition = await create();
  await http.delete(`/v1/compositions/${composition.id}`);
  return composition;
}

async function check(compositionId: string, generation: number) {
  await stack.stores.checks.put({
    id: `chk-${compositionId.slice(2)}${generation}`,
    composition_id: compositionId,
    kind: 'routing',
    generation,
    status: 'passed',
    message: 'the preview URL answered',
    ran_at: new Date(Date.now() + generation).toISOString(),
    target: null,
    http_status: 200,
    coverage: {},
    fingerprint: { inputs: {}, hash: 'h' },
  });
}

async function publish(project: string, commit: string) {
  const { status, body } = await http.post(`/v1/projects/${project}/builds`, {
    component: 'service-b',
    repository: 'acme/shop',
    commit_sha: commit.repeat(40),
    ref: 'refs/heads/main',
    image: `registry.example.com/demo/service-b@sha256:${commit.repeat(64)}`,
  });
  expect([200, 201], JSON.stringify(body)).toContain(status);
}

async function cursorOf(path: string): Promise<string> {
  const { status, body } = await http.get(path);
  expect(status, JSON.stringify(body)).toBe(200);
  expect(body.next_cursor).toEqual(expect.any(String));
  return body.next_cursor;
}

async function expectRefused(path: string) {
  const { status, body } = await http.get(path);
  expect(status, JSON.stringify(body)).toBe(400);
  expect(body).toMatchObject({ code: 'invalid_query', errors: [{ path: 'after' }] });
}

let a: { id: string };
let b: { id: string };
beforeAll(async () => {
  const applied = await http.post('/v1/catalog/apply', demoManifestWithoutMessaging('shop'));
  expect(applied.status, JSON.stringify(applied.body)).toBe(200);
  a = await withEvents();
  b = await withEvents();
  await create('shop');
  await create('shop');
  for (const generation of [1, 2]) {
    await check(a.id, generation);
    await check(b.id, generation);
  }
  for (const commit of ['a', 'b']) {
    await publish('demo', commit);
    await publish('shop', commit);
  }
});

describe('a cursor of another list', () => {
  it("is refused on another composition's events", async () => {
    const cursor = await cursorOf(`/v1/compositions/${a.id}/events?limit=1`);
    await expectRefused(`/v1/compositions/${b.id}/events?limit=1&after=${cursor}`);
    expect((await http.get(`/v1/compositions/${a.id}/events?limit=1&after=${cursor}`)).status).toBe(200);
  });

  it("is refused on another composition's verification", async () => {
    const cursor = await cursorOf(`/v1/compositions/${a.id}/verification?limit=1`);
    await expectRefused(`/v1/compositions/${b.id}/verification?limit=1&after=${cursor}`);
  });

  it("is refused under another project's filter, and without the filter", async () => {
    const cursor = await cursorOf('/v1/compositions?project=demo&limit=1');
    await expectRefused(`/v1/compositions?project=shop&limit=1&after=${cursor}`);
    await expectRefused(`/v1/compositions?limit=1&after=${cursor}`);
    const unfiltered = await cursorOf('/v1/compositions?limit=1');
    await expectRefused(`/v1/compositions?project=demo&limit=1&after=${unfiltered}`);
  });

  it("is refused on another project's builds, and under another filter", async () => {
    const cursor = await cursorOf('/v1/projects/demo/builds?limit=1');
    await expectRefused(`/v1/projects/shop/builds?limit=1&after=${cursor}`);
    await expectRefused(`/v1/projects/demo/builds?limit=1&component=service-b&after=${cursor}`);
    expect((await http.get(`/v1/projects/demo/builds?limit=1&after=${cursor}`)).status).toBe(200);
  });

  it("is refused on another project's components", async () => {
    const cursor = await cursorOf('/v1/projects/demo/components?limit=1');
    await expectRefused(`/v1/projects/shop/components?limit=1&after=${cursor}`);
  });
});

describe('a cursor made by hand', () => {
  it.each([
    ['the keys of a real item', { pk: 'COMP#c-x', sk: 'COMP', gsi1pk: 'COMPS', gsi1sk: 'x' }],
    ['nothing', {}],
    ['a name', { n: 'service-a' }],
  ])('is refused when it holds %s', async (_, position) => {
    const handMade = Buffer.from(JSON.stringify(position)).toString('base64url');
    await expectRefused(`/v1/compositions?limit=1&after=${handMade}`);
    await expectRefused(`/v1/compositions/${a.id}/events?limit=1&after=${handMade}`);
    await expectRefused(`/v1/projects/demo/components?limit=1&after=${handMade}`);
  });

  it('is refused when a real one is altered', async () => {
    const cursor = await cursorOf('/v1/compositions?limit=1');
    const altered = `${cursor.slice(0, 4)}${cursor[4] === 'A' ? 'B' : 'A'}${cursor.slice(5)}`;
    await expectRefused(`/v1/compositions?limit=1&after=${altered}`);
  });
});
