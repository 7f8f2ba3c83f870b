import type { Stack } from '@svc/local';
import { demoManifest, deployBaselineOf } from '@svc/local/demo';
import { type HttpClient, useTestStack } from '@svc/local/testing';
import { describe, expect, it } from 'vitest';
import { createComposition, waitForPhase } from './support/compositions.ts';

let http: HttpClient;
let apiUrl: string;
let stack: Stack;
useTestStack({}, (started) => {
  http = started.http;
  stack = started.stack;
  apiUrl = started.stack.apiUrl;
});

type Manifest = ReturnType<typeof demoManifest>;
const clone = (m: Manifest): Manifest => structuredClone(m);

function project(name: string): Manifest {
  const manifest = clone(demoManifest());
  const first = manifest.projects[0];
  if (!first) throw new Error('demo manifest has no project');
  first.name = name;
  // A namespace belongs to one project: each test project gets its own.
  for (const baseline of first.baselines) baseline.namespace = name;
  return manifest;
}

describe('catalog reads', () => {
  it('lists the seeded demo project', async () => {
    const { status, body } = await http.get('/v1/projects');
    expect(status).toBe(200);
    expect(body.items).toContainEqual({
      name: 'demo',
      default_baseline: 'staging',
      version: 1,
      applied_at: expect.any(String),
      components: ['service-a', 'service-b', 'service-c', 'service-d'],
      baselines: ['staging', 'staging-sleepy'],
    });
  });

  it('lists components with revisions', async () => {
    const { body } = await http.get('/v1/projects/demo/components');
    expect(body.items.map((c: { name: string }) => c.name)).toEqual([
      'service-a',
      'service-b',
      'service-c',
      'service-d',
    ]);
    expect(body.items[1]).toMatchObject({
      name: 'service-b',
      revision: 1,
      workload: { kind: 'Deployment', name: 'service-b', container: 'app' },
      service: { name: 'service-b', port: 80 },
      dependencies: ['service-c'],
      log_selector: { 'app.kubernetes.io/name': 'service-b' },
    });
    const page = await http.get('/v1/projects/demo/components?limit=3');
    expect(page.body.items).toHaveLength(3);
    const rest = await http.get(`/v1/projects/demo/components?limit=3&after=${page.body.next_cursor}`);
    expect(rest.body.items.map((c: { name: string }) => c.name)).toEqual(['service-d']);
  });

  it('lists baselines with revisions', async () => {
    const { body } = await http.get('/v1/projects/demo/baselines');
    expect(body.items).toEqual([
      expect.objectContaining({
        name: 'staging',
        namespace: 'staging',
        entry_component: 'service-a',
        revision: 1,
        messaging: { topics: ['demo-events'], routing_attribute: 'preview_route' },
      }),
      expect.objectContaining({
        name: 'staging-sleepy',
        namespace: 'staging',
        entry_component: 'service-a',
        revision: 1,
        sleep: { after: '2m' },
      }),
    ]);
  });

  it('answers 404 for an unknown project', async () => {
    expect((await http.get('/v1/projects/nope/components')).status).toBe(404);
    expect((await http.get('/v1/projects/nope/baselines')).status).toBe(404);
  });
});

describe('catalog apply', () => {
  it('re-applying the same manifest is a no-op', async () => {
    // The manifest as the stack seeded it: its log links name the port the API got.
    const { status, body } = await http.post('/v1/catalog/apply', demoManifest(apiUrl));
    expect(status).toBe(200);
    expect(body.changed).toBe(false);
    expect(body.projects).toEqual([expect.objectContaining({ name: 'demo', version: 1, changed: false })]);
  });

  it('gives a changed profile the next revision and keeps the others', async () => {
    const manifest = project('revisions');
    expect((await http.post('/v1/catalog/apply', manifest)).body.projects[0].version).toBe(1);
    const component = manifest.projects[0]?.components[1];
    if (!component) throw new Error('missing component');
    component.port = 9090;
    const { body } = await http.post('/v1/catalog/apply', manifest);
    expect(body.projects[0]).toMatchObject({
      version: 2,
      changed: true,
      revisions: { 'service-a': 1, 'service-b': 2, 'service-c': 1, 'service-d': 1 },
    });
    const plan = await http.post('/v1/compositions/plan', {
      project: 'revisions',
      baseline: 'staging',
      name: 'x',
      expected_preview_revisions: { 'service-b': 1 },
    });
    expect(plan.body.blockers[0].code).toBe('preview_revision_changed');
  });

  it('writes nothing when one item is bad', async () => {
    const manifest = project('atomic');
    const second = project('atomic-two').projects[0];
    if (!second) throw new Error('missing project');
    second.components[0]?.dependencies.push('service-missing');
    manifest.projects.push(second);
    const { status, body } = await http.post('/v1/catalog/apply', manifest);
    expect(status).toBe(422);
    expect(body.errors).toContainEqual(
      expect.objectContaining({ path: '/projects/1/components/0/dependencies/2', code: 'unknown_component' }),
    );
    expect((await http.get('/v1/projects/atomic/components')).status).toBe(404);
    expect((await http.get('/v1/projects/atomic-two/components')).status).toBe(404);
  });

  it('serializes concurrent applies to one project', async () => {
    const base = project('concurrent');
    await http.post('/v1/catalog/apply', base);
    const variants = [8081, 8082, 8083, 8084].map((port) => {
      const manifest = clone(base);
      const component = manifest.projects[0]?.components[0];
      if (component) component.port = port;
      return manifest;
    });
    const answers = await Promise.all(variants.map((m) => http.post('/v1/catalog/apply', m)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const versions = answers.map((a) => a.body.projects[0].version).sort();
    expect(versions).toEqual([2, 3, 4, 5]);
    const { body } = await http.get('/v1/projects/concurrent/components');
    expect(body.items[0].revision).toBe(5);
  });
});

describe('catalog validate', () => {
  it('reports every problem by path and changes nothing', async () => {
    const manifest = project('broken');
    const p = manifest.projects[0];
    if (!p) throw new Error('missing project');
    p.components.push({
      ...structuredClone(p.components[0]),
      name: 'service-a',
    } as (typeof p.components)[number]);
    p.components[2]?.dependencies.push('service-b');
    const baseline = p.baselines[0];
    if (baseline) baseline.entry_component = 'service-z';
    p.default_baseline = 'prod';
    const { status, body } = await http.post('/v1/catalog/validate', manifest);
    expect(status).toBe(200);
    expect(body.valid).toBe(false);
    const codes = body.problems.map((x: { code: string }) => x.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'duplicate_name',
        'dependency_cycle',
        'missing_entry_component',
        'unknown_baseline',
      ]),
    );
    expect((await http.get('/v1/projects/broken/components')).status).toBe(404);
  });

  it('refuses a consumer of a topic its baseline does not isolate', async () => {
    const manifest = project('leaky');
    const p = manifest.projects[0];
    const consumer = p?.components.find((c) => c.name === 'service-d');
    if (!consumer) throw new Error('missing service-d');
    consumer.message_subscriptions = [{ topic: 'billing-events', queue_env: 'BILLING_QUEUE_URL' }];
    const { body } = await http.post('/v1/catalog/validate', manifest);
    expect(body.valid).toBe(false);
    // Each of the demo's baselines (staging, staging-sleepy) isolates only demo-events.
    expect(body.problems).toEqual(
      [0, 1].map((b) =>
        expect.objectContaining({
          path: `/projects/0/baselines/${b}/messaging/topics`,
          code: 'topic_not_isolated',
        }),
      ),
    );
  });

  it('refuses a baseline topic the stage does not grant, in the dry run and the apply, writing nothing', async () => {
    const manifest = project('ungranted');
    const baseline = manifest.projects[0]?.baselines[0];
    if (!baseline?.messaging) throw new Error('the demo baseline has no messaging');
    baseline.messaging.topics = ['demo-events', 'orders'];
    const problem = {
      path: '/projects/0/baselines/0/messaging/topics/1',
      code: 'topic_not_granted',
      message: expect.stringContaining('topic "orders" is not one the installation grants (demo-events)'),
    };
    const validated = await http.post('/v1/catalog/validate', manifest);
    expect(validated.body).toEqual({ valid: false, problems: [problem] });
    const applied = await http.post('/v1/catalog/apply', manifest);
    expect(applied.status).toBe(422);
    expect(applied.body.errors).toEqual([problem]);
    expect((await http.get('/v1/projects/ungranted/baselines')).status).toBe(404);
  });

  it('says valid for a good manifest', async () => {
    expect((await http.post('/v1/catalog/validate', demoManifest())).body).toEqual({
      valid: true,
      problems: [],
    });
  });
});

describe('namespaces belong to one project', () => {
  const inNamespace = (name: string, namespace: string) => {
    const manifest = project(name);
    for (const baseline of manifest.projects[0]?.baselines ?? []) baseline.namespace = namespace;
    return manifest;
  };

  it('refuses a baseline in a namespace another project’s baseline uses, naming both, writing nothing', async () => {
    const taken = await http.post('/v1/catalog/apply', inNamespace('intruder', 'staging'));
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('namespace_taken');
    expect(taken.body.detail).toContain('belongs to project "demo" (baseline "staging")');
    expect(taken.body.detail).toContain('project "intruder" (baseline "staging")');
    expect((await http.get('/v1/projects/intruder/baselines')).status).toBe(404);
  });

  it.each(['kube-system', 'kube-public', 'default', 'svc-system'])(
    'refuses a baseline in %s, which no preview may use',
    async (namespace) => {
      const refused = await http.post('/v1/catalog/apply', inNamespace('system-user', namespace));
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toContainEqual({
        path: '/projects/0/baselines/0/namespace',
        code: 'namespace_not_allowed',
        message: expect.stringContaining('previewNamespaces'),
      });
      const validated = await http.post('/v1/catalog/validate', inNamespace('system-user', namespace));
      expect(validated.body.valid).toBe(false);
    },
  );

  it('gives a namespace back when its project moves its baseline elsewhere', async () => {
    expect((await http.post('/v1/catalog/apply', inNamespace('mover', 'first-home'))).status).toBe(200);
    expect((await http.post('/v1/catalog/apply', inNamespace('follower', 'first-home'))).status).toBe(409);
    expect((await http.post('/v1/catalog/apply', inNamespace('mover', 'second-home'))).status).toBe(200);
    expect((await http.post('/v1/catalog/apply', inNamespace('follower', 'first-home'))).status).toBe(200);
    expect((await http.post('/v1/catalog/apply', inNamespace('mover', 'first-home'))).status).toBe(409);
  });

  it('keeps a namespace its project still has live compositions in, naming them, until they are gone', async () => {
    const home = inNamespace('holder', 'holder-home');
    expect((await http.post('/v1/catalog/apply', home)).status).toBe(200);
    await deployBaselineOf(stack.cluster, home, 'holder');
    const live = await createComposition(http, {}, { project: 'holder', name: 'still-here' });
    const moved = await http.post('/v1/catalog/apply', inNamespace('holder', 'holder-new-home'));
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe('namespace_in_use');
    expect(moved.body.detail).toContain(live.id);
    expect(moved.body.detail).toContain('namespace "holder-home"');
    // Nothing changed: the baseline is where it was, and no other project may take its namespace.
    expect((await http.get('/v1/projects/holder/baselines')).body.items[0].namespace).toBe('holder-home');
    expect((await http.post('/v1/catalog/apply', inNamespace('taker', 'holder-home'))).body.code).toBe(
      'namespace_taken',
    );
    expect((await http.delete(`/v1/compositions/${live.id}`)).status).toBe(202);
    await waitForPhase(http, live.id, ['destroyed']);
    expect((await http.post('/v1/catalog/apply', inNamespace('holder', 'holder-new-home'))).status).toBe(200);
    expect((await http.post('/v1/catalog/apply', inNamespace('taker', 'holder-home'))).status).toBe(200);
  });
});
