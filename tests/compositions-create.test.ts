import type { Stack } from '@svc/local';
import { demoManifestWithoutMessaging, image } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';

let stack: Stack;
let http: HttpClient;
// Acceptance only: without the worker, a composition stays exactly as the create left it.
useTestStack({ worker: false }, (started) => {
  ({ stack, http } = started);
});

const body = (extra: Record<string, unknown> = {}) => ({
  project: 'demo',
  baseline: 'staging',
  name: 'feature-x',
  overrides: { 'service-b': { image: image('service-b') } },
  ...extra,
});

describe('POST /v1/compositions', () => {
  it('accepts with 202, a Location header and the initial state of spec part 3', async () => {
    const before = Date.now();
    const { status, headers, body: composition } = await http.post('/v1/compositions', body());
    expect(status).toBe(202);
    expect(headers.get('location')).toBe(`/v1/compositions/${composition.id}`);
    expect(composition.id).toMatch(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/);
    expect(composition.id.length).toBeLessThanOrEqual(40);
    expect(composition).toMatchObject({
      project: 'demo',
      baseline: 'staging',
      name: 'feature-x',
      phase: 'created',
      generation: 1,
      observed_generation: 0,
      ttl: '4h',
      message_isolation: false,
      owner: { kind: 'user', subject: 'admin' },
      overrides: { 'service-b': { image: image('service-b'), build_id: null } },
      endpoints: {
        public: {
          url: `http://${composition.id}.preview.localhost:${new URL(stack.gatewayUrl).port}/`,
          ready: false,
        },
      },
      latest_operation: { kind: 'create', status: 'pending' },
      message_subscriptions: null,
    });
    expect(composition.desired.inherited).toEqual(['service-a', 'service-c', 'service-d']);
    expect(composition.desired.profile_revisions).toEqual({
      'service-a': 1,
      'service-b': 1,
      'service-c': 1,
      'service-d': 1,
    });
    const created = Date.parse(composition.created_at);
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(composition.expires_at) - created).toBe(4 * 3600 * 1000);
    expect(composition.created_at).toMatch(/Z$/);

    const read = await http.get(`/v1/compositions/${composition.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(composition);
  });

  it('accepts a baseline-only preview with {} overrides', async () => {
    const { status, body: composition } = await http.post('/v1/compositions', body({ overrides: {} }));
    expect(status).toBe(202);
    expect(composition.overrides).toEqual({});
    expect(composition.desired.inherited).toHaveLength(4);
  });

  it.each([
    ['30m', 1800],
    ['1h30m', 5400],
    ['24h', 86400],
  ])('takes ttl %s', async (ttl, seconds) => {
    const { status, body: composition } = await http.post('/v1/compositions', body({ ttl }));
    expect(status).toBe(202);
    expect(Date.parse(composition.expires_at) - Date.parse(composition.created_at)).toBe(seconds * 1000);
  });

  it.each([
    ['25h', 'ttl_out_of_range'],
    ['24h1s', 'ttl_out_of_range'],
    ['10s', 'ttl_out_of_range'],
    ['2 hours', 'invalid_ttl'],
    ['', 'invalid_ttl'],
  ])('refuses ttl %j with 422 naming /ttl', async (ttl, code) => {
    const { status, body: problem } = await http.post('/v1/compositions', body({ ttl }));
    expect(status).toBe(422);
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/ttl', code })]);
  });

  it.each(['project', 'name'])('requires %s', async (field) => {
    const request: Record<string, unknown> = body();
    delete request[field];
    const { status, body: problem } = await http.post('/v1/compositions', request);
    expect(status).toBe(422);
    expect(problem.errors).toEqual([{ path: `/${field}`, message: `${field} is required` }]);
  });

  it('takes the project’s default baseline when the body names none, in the plan as in the create', async () => {
    const { baseline: _named, ...unnamed } = body({ name: 'default-baseline' });
    const planned = await http.post('/v1/compositions/plan', unnamed);
    expect(planned.status).toBe(200);
    expect(planned.body.blockers).toEqual([]);
    expect(planned.body.destination).toMatchObject({ namespace: 'staging' });
    const created = await http.post('/v1/compositions', unnamed);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.baseline).toBe('staging');
  });

  it('refuses names that are not DNS labels', async () => {
    const { status, body: problem } = await http.post('/v1/compositions', body({ name: 'Feature_X' }));
    expect(status).toBe(422);
    expect(problem.errors[0].path).toBe('/name');
  });

  it('refuses unknown fields, naming them', async () => {
    const { status, body: problem } = await http.post('/v1/compositions', body({ color: 'blue' }));
    expect(status).toBe(422);
    expect(problem.errors).toEqual([{ path: '/color', message: 'unknown field "color"' }]);
  });

  it('refuses more than three overrides', async () => {
    const overrides = Object.fromEntries(
      ['service-a', 'service-b', 'service-c', 'service-d'].map((c) => [c, { image: image(c) }]),
    );
    const { status, body: problem } = await http.post('/v1/compositions', body({ overrides }));
    expect(status).toBe(422);
    expect(problem.errors).toContainEqual(
      expect.objectContaining({ path: '/overrides', code: 'too_many_overrides' }),
    );
  });

  it.each([
    [{}, 'neither'],
    [{ image: image('service-b'), build_id: 'b-123' }, 'both'],
  ])('refuses an override with %j (%s selector)', async (override, _which) => {
    const { status, body: problem } = await http.post(
      '/v1/compositions',
      body({ overrides: { 'service-b': override } }),
    );
    expect(status).toBe(422);
    expect(problem.errors).toEqual([
      expect.objectContaining({ path: '/overrides/service-b', code: 'invalid_override' }),
    ]);
  });

  it('refuses an image that is not fully qualified, saying how to fix it', async () => {
    const { status, body: problem } = await http.post(
      '/v1/compositions',
      body({ overrides: { 'service-b': { image: 'nginx:1' } } }),
    );
    expect(status).toBe(422);
    expect(problem.errors[0]).toMatchObject({ path: '/overrides/service-b/image', code: 'invalid_image' });
    expect(problem.errors[0].message).toMatch(/registry host/);
  });

  it.each([
    [{ project: 'nope' }, '/project'],
    [{ baseline: 'nope' }, '/baseline'],
    [{ overrides: { 'service-z': { image: 'registry.example.com/z:1' } } }, '/overrides/service-z'],
    [{ overrides: { 'service-b': { build_id: 'b-unknown' } } }, '/overrides/service-b/build_id'],
  ])('refuses unknown references %j with 422 unknown_reference naming %s', async (extra, path) => {
    const { status, body: problem } = await http.post('/v1/compositions', body(extra));
    expect(status).toBe(422);
    expect(problem.code).toBe('unknown_reference');
    expect(problem.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('resolves build_id from published builds only', async () => {
    const digest = `sha256:${'b'.repeat(64)}`;
    const published = await http.post('/v1/projects/demo/builds', {
      component: 'service-b',
      repository: 'acme/service-b',
      commit_sha: 'a'.repeat(40),
      ref: 'refs/heads/main',
      image: `registry.example.com/demo/service-b@${digest}`,
    });
    expect(published.status).toBe(201);
    const { status, body: composition } = await http.post(
      '/v1/compositions',
      body({ overrides: { 'service-b': { build_id: published.body.id } } }),
    );
    expect(status).toBe(202);
    expect(composition.desired.images['service-b']).toEqual({
      image: `registry.example.com/demo/service-b@${digest}`,
      source: 'build',
      build_id: published.body.id,
      digest,
    });

    const wrongComponent = await http.post(
      '/v1/compositions',
      body({ overrides: { 'service-c': { build_id: published.body.id } } }),
    );
    expect(wrongComponent.status).toBe(422);
    expect(wrongComponent.body.errors[0].code).toBe('build_component_mismatch');
  });

  it('refuses message isolation on a baseline without messaging, naming what is missing', async () => {
    expect((await http.post('/v1/catalog/apply', demoManifestWithoutMessaging('quiet'))).status).toBe(200);
    const { status, body: problem } = await http.post(
      '/v1/compositions',
      body({ project: 'quiet', message_isolation: true }),
    );
    expect(status).toBe(422);
    expect(problem.errors[0]).toMatchObject({ path: '/message_isolation', code: 'messaging_not_configured' });
    expect(problem.errors[0].message).toMatch(/messaging/);
  });

  it('guards approved profile revisions with 409 preview_revision_changed', async () => {
    const ok = await http.post('/v1/compositions', body({ expected_preview_revisions: { 'service-b': 1 } }));
    expect(ok.status).toBe(202);
    const stale = await http.post(
      '/v1/compositions',
      body({ expected_preview_revisions: { 'service-b': 7 } }),
    );
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('preview_revision_changed');
    expect(stale.body.errors[0].path).toBe('/expected_preview_revisions/service-b');
  });

  it('answers malformed JSON with 400', async () => {
    const { status, body: problem } = await http.post('/v1/compositions', '{"project": ');
    expect(status).toBe(400);
    expect(problem.code).toBe('malformed_json');
  });

  it('answers a non-JSON content type with 415', async () => {
    const { status, body: problem } = await http.post('/v1/compositions', 'project=demo', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(status).toBe(415);
    expect(problem.code).toBe('unsupported_media_type');
  });

  it('answers a body over 256 KiB with 413 and writes nothing', async () => {
    const before = await http.get('/v1/compositions?limit=200');
    const { status, body: problem } = await http.post(
      '/v1/compositions',
      body({ name: 'x'.repeat(300 * 1024) }),
    );
    expect(status).toBe(413);
    expect(problem.code).toBe('payload_too_large');
    const after = await http.get('/v1/compositions?limit=200');
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it('writes nothing when a create is refused', async () => {
    const before = await http.get('/v1/compositions?limit=200');
    await http.post('/v1/compositions', body({ project: 'nope' }));
    await http.post('/v1/compositions', body({ ttl: '99h' }));
    const after = await http.get('/v1/compositions?limit=200');
    expect(after.body.items.map((c: { id: string }) => c.id)).toEqual(
      before.body.items.map((c: { id: string }) => c.id),
    );
  });
});

describe('POST /v1/compositions/plan', () => {
  it('answers the CONVENTIONS plan shape and writes nothing', async () => {
    const before = await http.get('/v1/compositions?limit=200');
    const { status, body: plan } = await http.post('/v1/compositions/plan', body({ ttl: '2h' }));
    expect(status).toBe(200);
    expect(plan).toEqual({
      images: { 'service-b': { image: image('service-b'), source: 'image', build_id: null, digest: null } },
      inherited: ['service-a', 'service-c', 'service-d'],
      profile_revisions: { 'service-a': 1, 'service-b': 1, 'service-c': 1, 'service-d': 1 },
      dependencies: {
        'service-a': ['service-b', 'service-d'],
        'service-b': ['service-c'],
        'service-c': [],
        'service-d': [],
      },
      destination: {
        cluster: 'local',
        namespace: 'staging',
        url: `http://{id}.preview.localhost:${new URL(stack.gatewayUrl).port}/`,
      },
      lifetime: { ttl: '2h', expires_at: expect.stringMatching(/Z$/) },
      resource_estimate: { cpu_millicores: 100, memory_mib: 128, pods: 1 },
      sleep: null,
      blockers: [],
      cautions: [expect.objectContaining({ code: 'mutable_image_tag' })],
    });
    const after = await http.get('/v1/compositions?limit=200');
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it('reports every rule violation as a blocker with 200', async () => {
    const overrides = {
      'service-a': { image: 'nginx:1' },
      'service-b': { build_id: 'b-missing' },
      'service-c': {},
      'service-x': { image: image('service-x') },
    };
    const { status, body: plan } = await http.post(
      '/v1/compositions/plan',
      body({ overrides, ttl: '48h', expected_preview_revisions: { 'service-d': 9 } }),
    );
    expect(status).toBe(200);
    const codes = plan.blockers.map((b: { code: string }) => b.code).sort();
    expect(codes).toEqual(
      [
        'invalid_image',
        'invalid_override',
        'preview_revision_changed',
        'too_many_overrides',
        'ttl_out_of_range',
        'unknown_build',
        'unknown_component',
      ].sort(),
    );
    expect(plan.lifetime).toEqual({ ttl: null, expires_at: null });
  });

  it('reports an unknown project as a blocker with a null destination', async () => {
    const { status, body: plan } = await http.post('/v1/compositions/plan', body({ project: 'nope' }));
    expect(status).toBe(200);
    expect(plan.destination).toBeNull();
    expect(plan.blockers).toEqual([
      { code: 'unknown_project', message: expect.any(String), component: null },
    ]);
  });
});
