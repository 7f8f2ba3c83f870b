import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import type { Build } from '../builds/schema.ts';
import { nextProjectVersion } from '../catalog/model.ts';
import { ProjectManifest } from '../catalog/schema.ts';
import { demoCatalog, demoProject, image, now } from '../testing/fixtures.ts';
import { BlockerCode, type PlanContext, type PlanRequest, planIdPlaceholder, planOf } from './plan.ts';
import { defaultSleepSettings } from './sleep.ts';

const digest = `sha256:${'a'.repeat(64)}`;
const build: Build = {
  id: 'b-1',
  project: 'demo',
  component: 'service-b',
  repository: 'acme/service-b',
  commit_sha: 'f'.repeat(40),
  ref: 'refs/heads/main',
  image: `registry.example.com/demo/service-b@${digest}`,
  digest,
  published_at: now.toISOString(),
  published_by: 'ci',
};

const context: PlanContext = {
  catalog: demoCatalog(),
  builds: new Map([
    ['b-1', build],
    ['b-other', { ...build, id: 'b-other', project: 'other' }],
  ]),
  now,
  previewUrl: (id, domain, cluster) => `http://${id}.${domain}:${cluster === 'local' ? 8082 : 8084}/`,
  clusters: ['local', 'local-2'],
  sleep: defaultSleepSettings,
};

function request(changes: Partial<PlanRequest> = {}): PlanRequest {
  return {
    project: 'demo',
    baseline: 'staging',
    overrides: { 'service-b': { image: image('service-b', '2.0.0') } },
    message_isolation: false,
    expected_preview_revisions: {},
    ...changes,
  };
}

const blockers = (result: ReturnType<typeof planOf>) => result.blockers.map((b) => [b.code, b.path]);

describe('a plan without blockers', () => {
  const result = planOf(request(), context);

  it('resolves the override and inherits every other component of the baseline', () => {
    expect(result.blockers).toEqual([]);
    expect(result.view.images).toEqual({
      'service-b': { image: image('service-b', '2.0.0'), source: 'image', build_id: null, digest: null },
    });
    expect(result.view.inherited).toEqual(['service-a', 'service-c']);
    expect(result.view.profile_revisions).toEqual({ 'service-a': 1, 'service-b': 1, 'service-c': 1 });
    expect(result.view.dependencies).toEqual({
      'service-a': ['service-b'],
      'service-b': ['service-c'],
      'service-c': [],
    });
  });

  it('names the destination with an id placeholder, the default lifetime, and the resources forks add', () => {
    expect(result.view.destination).toEqual({
      cluster: 'local',
      namespace: 'staging',
      url: `http://${planIdPlaceholder}.preview.localhost:8082/`,
    });
    expect(result.view.lifetime).toEqual({ ttl: '4h', expires_at: '2026-03-01T16:00:00.000Z' });
    expect(result.view.resource_estimate).toEqual({ cpu_millicores: 200, memory_mib: 128, pods: 2 });
    if (!result.plannable) throw new Error('the plan is blocked');
    expect(result.ttlSeconds).toBe(4 * 3600);
    expect(result.catalogVersion).toEqual({ version: 1, version_id: 'version-1' });
    expect(result.baseline.name).toBe('staging');
    expect(result.baselineName).toBe('staging');
  });

  it('sends the destination to the baseline’s cluster, at its gateway’s URL', () => {
    const demo = demoCatalog();
    const staging = demo.baselines.staging;
    if (!staging) throw new Error('the demo catalog has no staging');
    const moved = { ...staging, spec: { ...staging.spec, cluster: 'local-2' } };
    const catalog = { ...demo, baselines: { ...demo.baselines, staging: moved } };
    expect(planOf(request(), { ...context, catalog }).view.destination).toEqual({
      cluster: 'local-2',
      namespace: 'staging',
      url: `http://${planIdPlaceholder}.preview.localhost:8084/`,
    });
  });

  it('plans on the project’s default baseline when none is named', () => {
    const { baseline: _named, ...unnamed } = request();
    const planned = planOf(unnamed, context);
    expect(planned.plannable && planned.baselineName).toBe('staging');
    const unknown = planOf(request({ baseline: 'nowhere' }), context);
    expect(unknown.plannable).toBe(false);
    expect(unknown.blockers.map((b) => b.code)).toEqual(['unknown_baseline']);
  });

  it('cautions about a tag-only image and about a plan overriding nothing', () => {
    expect(result.view.cautions.map((c) => c.code)).toEqual(['mutable_image_tag']);
    expect(planOf(request({ overrides: {} }), context).view.cautions.map((c) => c.code)).toEqual([
      'no_overrides',
    ]);
  });

  it('resolves a published build of the component, pinned by digest', () => {
    const byBuild = planOf(request({ overrides: { 'service-b': { build_id: 'b-1' } } }), context);
    expect(byBuild.view.images['service-b']).toEqual({
      image: build.image,
      source: 'build',
      build_id: 'b-1',
      digest,
    });
    expect(byBuild.view.cautions).toEqual([]);
  });

  it('keeps a fixed lifetime (an update) instead of computing one', () => {
    const fixedLifetime = { ttl_seconds: 1800, expires_at: '2026-03-01T12:30:00.000Z' };
    const updated = planOf(request({ ttl: 'nonsense' }), { ...context, fixedLifetime });
    expect(updated.blockers).toEqual([]);
    expect(updated.view.lifetime).toEqual({ ttl: '30m', expires_at: '2026-03-01T12:30:00.000Z' });
  });
});

describe('plan blockers', () => {
  it('name an unknown project or baseline', () => {
    expect(blockers(planOf(request(), { ...context, catalog: null }))).toEqual([
      ['unknown_project', '/project'],
    ]);
    const result = planOf(request({ baseline: 'prod' }), context);
    expect(blockers(result)).toEqual([['unknown_baseline', '/baseline']]);
    expect(result.view.destination).toBeNull();
    expect(result.view.inherited).toEqual([]);
  });

  it('name components that are not registered or do not run in the baseline, escaping the pointer', () => {
    const result = planOf(request({ overrides: { 'a/b~c': { image: image('x', '1') } } }), context);
    expect(result.blockers).toEqual([
      {
        code: BlockerCode.UnknownComponent,
        message: 'component "a/b~c" is not registered in project "demo"',
        path: '/overrides/a~1b~0c',
        component: 'a/b~c',
      },
    ]);
  });

  it('refuse more than three overrides', () => {
    const overrides = Object.fromEntries(
      ['service-a', 'service-b', 'service-c', 'service-d'].map((c) => [c, { image: image(c, '2') }]),
    );
    expect(blockers(planOf(request({ overrides }), context))).toEqual([
      ['too_many_overrides', '/overrides'],
      ['unknown_component', '/overrides/service-d'],
    ]);
  });

  it('need exactly one of image or build_id, and a fully qualified image', () => {
    const overrides = {
      'service-a': {},
      'service-b': { image: image('service-b', '2'), build_id: 'b-1' },
      'service-c': { image: 'nginx:1' },
    };
    expect(blockers(planOf(request({ overrides }), context))).toEqual([
      ['invalid_override', '/overrides/service-a'],
      ['invalid_override', '/overrides/service-b'],
      ['invalid_image', '/overrides/service-c/image'],
    ]);
  });

  it('refuse builds that are unknown, of another project or of another component', () => {
    const overrides = {
      'service-a': { build_id: 'b-1' },
      'service-b': { build_id: 'b-missing' },
      'service-c': { build_id: 'b-other' },
    };
    const result = planOf(request({ overrides }), context);
    expect(blockers(result)).toEqual([
      ['build_component_mismatch', '/overrides/service-a/build_id'],
      ['unknown_build', '/overrides/service-b/build_id'],
      ['unknown_build', '/overrides/service-c/build_id'],
    ]);
    expect(result.view.images).toEqual({});
  });

  it.each([
    ['90 minutes', 'invalid_ttl'],
    ['30s', 'ttl_out_of_range'],
    ['25h', 'ttl_out_of_range'],
  ])('refuse the ttl %s with %s', (ttl, code) => {
    const result = planOf(request({ ttl }), context);
    expect(blockers(result)).toEqual([[code, '/ttl']]);
    expect(result.view.lifetime).toEqual({ ttl: null, expires_at: null });
  });

  it('say when an approved profile moved on from the expected revision', () => {
    const result = planOf(
      request({ expected_preview_revisions: { 'service-b': 1, 'service-c': 2, nope: 1 } }),
      context,
    );
    expect(result.blockers).toEqual([
      {
        code: 'preview_revision_changed',
        message: 'the approved profile of "service-c" is at revision 1, not 2',
        path: '/expected_preview_revisions/service-c',
        component: 'service-c',
      },
      expect.objectContaining({ code: 'unknown_component', path: '/expected_preview_revisions/nope' }),
    ]);
  });

  it('refuse message isolation on a baseline without messaging', () => {
    expect(blockers(planOf(request({ message_isolation: true }), context))).toEqual([
      ['messaging_not_configured', '/message_isolation'],
    ]);
    expect(
      planOf(request({ message_isolation: true }), { ...context, catalog: demoCatalog({ messaging: true }) })
        .blockers,
    ).toEqual([]);
  });

  it('refuse a baseline on a cluster the installation does not know, naming the clusters it knows', () => {
    const result = planOf(request(), { ...context, clusters: ['eu'] });
    expect(blockers(result)).toEqual([['unknown_cluster', '/baseline']]);
    expect(result.view.blockers[0]?.message).toBe(
      'baseline "staging" is on cluster "local", which is not one of this installation\'s clusters ("eu"): its catalog entry or the installation\'s settings must change first',
    );
    expect(result.view.destination?.cluster).toBe('local');
  });

  it('are listed in the view without their paths', () => {
    const result = planOf(request({ ttl: 'x' }), context);
    expect(result.view.blockers).toEqual([
      { code: 'invalid_ttl', message: 'ttl "x" is not a duration such as 30m, 2h or 1h30m', component: null },
    ]);
  });
});

describe('reading override images', () => {
  it('matches each image reference once: its check and its digest come from one read', () => {
    // The image pattern is the one anchored on a registry host.
    const exec = vi.spyOn(RegExp.prototype, 'exec');
    try {
      planOf(
        request({
          overrides: {
            'service-a': { image: image('service-a', '2.0.0') },
            'service-b': { image: `registry.example.com/demo/service-b@${digest}` },
          },
        }),
        context,
      );
      const imageReads = (exec.mock.contexts as RegExp[]).filter((pattern) =>
        pattern.source.startsWith('^((?:localhost'),
      );
      expect(imageReads).toHaveLength(2);
    } finally {
      exec.mockRestore();
    }
  });
});

describe('sleep in a plan', () => {
  function catalogSleeping(sleep: unknown) {
    const project = demoProject();
    Object.assign(project.baselines[0] ?? {}, { sleep });
    const version = nextProjectVersion(null, v.parse(ProjectManifest, project), now.toISOString(), 'v-1');
    if (!version) throw new Error('a first version always exists');
    return version;
  }

  it("says after how long the forks sleep, from the baseline's sleep.after", () => {
    const result = planOf(request(), { ...context, catalog: catalogSleeping({ after: '30m' }) });
    expect(result.view.sleep).toEqual({ after: '30m' });
    expect(result.plannable && result.sleepAfterSeconds).toBe(1800);
  });

  it('is off by default, on with the stage default, and off for a baseline that says null', () => {
    expect(planOf(request(), context).view.sleep).toBeNull();
    const stageDefault = { ...context, sleep: { ...defaultSleepSettings, defaultAfterSeconds: 600 } };
    expect(planOf(request(), stageDefault).view.sleep).toEqual({ after: '10m' });
    expect(planOf(request(), { ...stageDefault, catalog: catalogSleeping(null) }).view.sleep).toBeNull();
  });

  it("cuts a baseline's after to the stage maximum, and says so", () => {
    const result = planOf(request(), {
      ...context,
      catalog: catalogSleeping({ after: '8h' }),
      sleep: { ...defaultSleepSettings, maxAfterSeconds: 3600 },
    });
    expect(result.view.sleep).toEqual({ after: '1h' });
    expect(result.view.cautions.map((c) => c.code)).toContain('sleep_after_cut');
  });

  it('never sleeps a composition that overrides nothing: the baseline does not sleep', () => {
    const result = planOf(request({ overrides: {} }), {
      ...context,
      catalog: catalogSleeping({ after: '5m' }),
    });
    expect(result.view.sleep).toBeNull();
  });
});
