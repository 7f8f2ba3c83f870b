/**
 * Bodies a hostile or careless caller sends (issue 12): arrays where objects belong, reserved keys,
 * deep nesting, pathological draft text, a composition's own answer sent back. Each is refused
 * with a 4xx naming the field before anything is written, or accepted as it should be.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { demoManifest, image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let http: HttpClient;
let apiUrl: string;
useTestStack({}, (started) => {
  http = started.http;
  apiUrl = started.stack.apiUrl;
});

const create = (extra: Record<string, unknown>) => ({
  project: 'demo',
  baseline: 'staging',
  name: 'hostile',
  ...extra,
});

async function compositionCount(): Promise<number> {
  return (await http.get('/v1/compositions?limit=200')).body.items.length;
}

async function expectRefused(
  send: () => Promise<{ status: number; body: { code: string; errors: { path: string }[] } }>,
  status: number,
  code: string,
  paths: string[],
) {
  const before = await compositionCount();
  const { status: answered, body } = await send();
  expect(answered, JSON.stringify(body)).toBe(status);
  expect(body.code).toBe(code);
  expect(body.errors.map((e) => e.path)).toEqual(paths);
  expect(await compositionCount()).toBe(before);
}

describe('an array where an object belongs', () => {
  it.each([
    ['overrides: []', { overrides: [] }, '/overrides'],
    ['overrides: [{ image }]', { overrides: [{ image: image('service-b') }] }, '/overrides'],
    ['expected_preview_revisions: []', { expected_preview_revisions: [] }, '/expected_preview_revisions'],
  ])('is refused by create and plan for %s, naming the field', async (_, extra, path) => {
    await expectRefused(() => http.post('/v1/compositions', create(extra)), 422, 'validation_failed', [path]);
    await expectRefused(() => http.post('/v1/compositions/plan', create(extra)), 422, 'validation_failed', [
      path,
    ]);
  });

  it('is refused by an update, naming the field', async () => {
    const composition = await createComposition(http, {});
    await waitForPhase(http, composition.id, ['ready']);
    for (const body of [
      { expected_generation: 1, overrides: [] },
      { expected_generation: 1, overrides: {}, expected_preview_revisions: [] },
    ]) {
      const { status, body: problem } = await http.patch(`/v1/compositions/${composition.id}`, body);
      expect(status).toBe(422);
      expect(problem.code).toBe('validation_failed');
    }
    expect((await http.get(`/v1/compositions/${composition.id}`)).body.generation).toBe(1);
  });
});

describe('reserved keys', () => {
  it.each(['constructor', '__proto__', 'prototype'])('refuses %s as an override key', async (key) => {
    const body = `{"project":"demo","baseline":"staging","name":"hostile","overrides":{"${key}":{"image":"${image('service-b')}"}}}`;
    await expectRefused(() => http.post('/v1/compositions', body), 422, 'validation_failed', [
      `/overrides/${key}`,
    ]);
  });
});

describe('nesting', () => {
  it('refuses 100,000 nested arrays with 413 before any processing', async () => {
    const deep = `{"project":"demo","baseline":"staging","name":"x","overrides":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const { status, body } = await http.post('/v1/compositions', deep);
    expect(status).toBe(413);
    expect(body.code).toBe('payload_too_large');
    expect(body.detail).toMatch(/deeper than 32 levels/);
  });
});

describe('an oversized body', () => {
  const fiveMegabytes = JSON.stringify({ name: 'x'.repeat(5 * 1024 * 1024) });

  /** The answer to a 5 MB POST; a reset connection rejects the fetch, and so fails the test. */
  async function postLarge(body: string | ReadableStream<Uint8Array>, extra: RequestInit = {}) {
    const response = await fetch(`${apiUrl}/v1/compositions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      ...extra,
    });
    return {
      status: response.status,
      connection: response.headers.get('connection'),
      body: await response.json(),
    };
  }

  it('is answered 413 with Connection: close every time, never a broken pipe (20 × 5 MB)', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const answer = await postLarge(fiveMegabytes);
      expect(answer).toMatchObject({ status: 413, connection: 'close', body: { code: 'payload_too_large' } });
    }
  });

  it('keeps reading a client still sending after the 413 goes out, and closes only after its body', async () => {
    const { port } = new URL(apiUrl);
    const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
    const seen: string[] = [];
    let answer = '';
    let answered: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      answered = resolve;
    });
    socket.on('data', (data) => {
      if (answer === '') seen.push('answer');
      answer += data.toString();
      answered();
    });
    const ended = new Promise<void>((resolve) =>
      socket.on('end', () => {
        seen.push('closed');
        resolve();
      }),
    );
    const megabyte = Buffer.alloc(1024 * 1024, 'x');
    socket.write(
      `POST /v1/compositions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${5 * megabyte.length}\r\n\r\n`,
    );
    // The whole body comes only after the answer: every part is a write to a connection answered already.
    await arrived;
    for (let part = 0; part < 5; part++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      // A write to a connection the server already closed fails with EPIPE or ECONNRESET.
      await new Promise<void>((resolve, reject) =>
        socket.write(megabyte, (error) => (error ? reject(error) : resolve())),
      );
      seen.push(`part ${part}`);
    }
    await ended;
    socket.end();
    expect(seen).toEqual(['answer', 'part 0', 'part 1', 'part 2', 'part 3', 'part 4', 'closed']);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it('is answered 413 the same way when sent chunked, with no length to refuse it by', async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const chunks = new Blob([fiveMegabytes]).stream();
      const answer = await postLarge(chunks, { duplex: 'half' } as RequestInit);
      expect(answer).toMatchObject({ status: 413, connection: 'close', body: { code: 'payload_too_large' } });
    }
  });
});

describe('a composition sent back as it answers', () => {
  it('takes its own override entries, build_id null and all, in a PATCH', async () => {
    const created = await createComposition(http, { 'service-b': { image: image('service-b', '2.0.0') } });
    const ready = await waitForPhase(http, created.id, ['ready']);
    expect(ready.overrides).toEqual({ 'service-b': { image: image('service-b', '2.0.0'), build_id: null } });
    const { status, body } = await http.patch(`/v1/compositions/${created.id}`, {
      expected_generation: ready.generation,
      overrides: ready.overrides,
    });
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body).toMatchObject({ generation: 2, overrides: ready.overrides });
  });
});

describe('catalog links and paths', () => {
  const withEntry = (change: (project: ReturnType<typeof demoManifest>['projects'][number]) => void) => {
    const manifest = demoManifest();
    const [project] = manifest.projects;
    if (project) change(project);
    return manifest;
  };

  it('refuses a javascript: observability link and a verification path naming another host', async () => {
    const manifest = withEntry((project) => {
      const [baseline] = project.baselines;
      const [component] = project.components;
      if (baseline) baseline.observability = { logs: 'javascript:alert(document.cookie)' };
      if (component) component.verification = { path: '//127.0.0.1:9299/x', expect_status: 200 };
    });
    const { status, body } = await http.post('/v1/catalog/apply', manifest);
    expect(status).toBe(422);
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/projects/0/baselines/0/observability/logs',
      '/projects/0/components/0/verification/path',
    ]);
  });
});

describe('the routing check', () => {
  let target: Server;
  let hits = 0;
  beforeAll(async () => {
    target = createServer((_request, response) => {
      hits++;
      response.end(JSON.stringify({ component: 'service-a', image: image('service-a', '1.0.0') }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => target.close(() => resolve())));

  it('requests its path on the preview URL only, never another origin', async () => {
    const { port } = target.address() as { port: number };
    const path = `/http://127.0.0.1:${port}/x`;
    const manifest = withEntryPath(path);
    const applied = await http.post('/v1/catalog/apply', manifest);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const created = await createComposition(http, {});
    await waitForPhase(http, created.id, ['ready', 'failed']);
    const checks = (await http.get(`/v1/compositions/${created.id}/verification`)).body.items;
    expect(checks[0].target).toBe(`${created.endpoints.public.url}http://127.0.0.1:${port}/x`);
    expect(hits).toBe(0);
    expect((await http.post('/v1/catalog/apply', demoManifest())).status).toBe(200);
  });

  function withEntryPath(path: string) {
    const manifest = demoManifest();
    for (const project of manifest.projects) {
      const entry = project.baselines[0]?.entry_component;
      for (const component of project.components) {
        if (component.name === entry) component.verification = { path, expect_status: 200 };
      }
    }
    return manifest;
  }
});
