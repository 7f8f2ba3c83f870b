import { describe, expect, it } from 'vitest';
import { isWebLink } from '../insight/observability.ts';
import { demoProject } from '../testing/fixtures.ts';
import { defaultNamespacePolicy } from './namespaces.ts';
import { validateManifest } from './validate.ts';

const image = 'registry.example.com/demo/service-a:1.0.0';

function manifest(changes: { component?: Record<string, unknown>; baseline?: Record<string, unknown> } = {}) {
  const project = demoProject();
  Object.assign(project.components[0] ?? {}, changes.component);
  Object.assign(project.baselines[0] ?? {}, changes.baseline);
  return { projects: [project] };
}

/** Every project on every cluster, previews on the demo's domain. */
const anyScope = { previewDomains: ['preview.localhost'], clusterScopes: {} };

const problemsOf = (input: unknown, messageTopics: readonly string[] = ['demo-events']) => {
  const result = validateManifest(input, {
    messageTopics,
    namespaces: defaultNamespacePolicy,
    clusters: ['local'],
    ...anyScope,
  });
  return result.valid ? [] : result.problems.map(({ path, code }) => ({ path, code }));
};

describe('message topics', () => {
  const withTopics = (topics: string[]) =>
    manifest({ baseline: { messaging: { topics, routing_attribute: 'preview_route' } } });

  it('accepts the topics the stage grants, by name, pattern or ARN', () => {
    expect(
      problemsOf(withTopics(['demo-events', 'arn:aws:sns:eu-west-1:1:billing-eu']), ['demo-*', 'billing-*']),
    ).toEqual([]);
  });

  it('refuses a topic the stage does not grant, naming it', () => {
    expect(problemsOf(withTopics(['demo-events', 'orders']))).toEqual([
      { path: '/projects/0/baselines/0/messaging/topics/1', code: 'topic_not_granted' },
    ]);
    const result = validateManifest(withTopics(['orders']), {
      messageTopics: [],
      namespaces: defaultNamespacePolicy,
      clusters: ['local'],
      ...anyScope,
    });
    expect(result.valid ? [] : result.problems.map((p) => p.message)).toEqual([
      'topic "orders" is not one the installation grants (none): add it to the stage\'s messageTopics and deploy first',
    ]);
  });
});

describe('clusters', () => {
  it('accepts a baseline on one of the stage’s clusters', () => {
    const limits = { messageTopics: ['demo-events'], namespaces: defaultNamespacePolicy, ...anyScope };
    expect(
      validateManifest(manifest({ baseline: { cluster: 'eu' } }), { ...limits, clusters: ['eu', 'us'] }),
    ).toMatchObject({ valid: true });
  });

  it('refuses a baseline on a cluster the stage does not know, naming the field and the ones it knows', () => {
    const result = validateManifest(manifest({ baseline: { cluster: 'elsewhere' } }), {
      messageTopics: ['demo-events'],
      namespaces: defaultNamespacePolicy,
      clusters: ['local', 'local-2'],
      ...anyScope,
    });
    expect(result.valid ? [] : result.problems).toEqual([
      {
        path: '/projects/0/baselines/0/cluster',
        code: 'unknown_cluster',
        message:
          'cluster "elsewhere" is not one of this installation\'s clusters ("local", "local-2"): name one of them, or add it to the stage\'s clusters and deploy first',
      },
    ]);
  });
});

describe('catalog manifest limits', () => {
  it('accepts the plain manifest', () => {
    expect(problemsOf(manifest())).toEqual([]);
  });

  it.each(['//127.0.0.1:9299/x', '/\\127.0.0.1/x', 'http://127.0.0.1:9299/x', '/a\tb', '/a b'])(
    'refuses the verification path %j: a path on the preview host only',
    (path) => {
      expect(problemsOf(manifest({ component: { verification: { path } } }))).toEqual([
        { path: '/projects/0/components/0/verification/path', code: 'invalid_shape' },
      ]);
    },
  );

  it.each(['javascript:alert(document.cookie)', 'data:text/html,<script>x</script>', 'ftp://logs/x'])(
    'refuses the observability link %j: http(s) only',
    (url) => {
      expect(problemsOf(manifest({ baseline: { observability: { logs: url } } }))).toEqual([
        { path: '/projects/0/baselines/0/observability/logs', code: 'invalid_shape' },
      ]);
    },
  );

  it('refuses an array where a map belongs, naming it', () => {
    expect(problemsOf(manifest({ baseline: { components: [{ image }] } }))).toEqual([
      { path: '/projects/0/baselines/0/components', code: 'invalid_shape' },
    ]);
    expect(problemsOf(manifest({ component: { log_selector: [] } }))).toEqual([
      { path: '/projects/0/components/0/log_selector', code: 'invalid_shape' },
    ]);
  });

  it('bounds the entries of lists and maps', () => {
    const links = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`l${i}`, `https://logs/${i}`]));
    expect(problemsOf(manifest({ baseline: { observability: links } }))).toEqual([
      { path: '/projects/0/baselines/0/observability', code: 'invalid_shape' },
    ]);
  });
});

describe('observability links', () => {
  it.each([
    ['https://grafana.example.com/d/x?var=c-1', true],
    ['http://logs.internal/x', true],
    ['javascript:alert(1)', false],
    ['data:text/html,x', false],
    ['not a url', false],
  ])('%s is handed out: %s', (url, expected) => {
    expect(isWebLink(url)).toBe(expected);
  });
});

describe('what a cluster takes', () => {
  const limits = {
    messageTopics: ['demo-events'],
    namespaces: { ...defaultNamespacePolicy, byCluster: { team: ['team-staging'] } },
    clusters: ['local', 'team'],
    previewDomains: ['preview.localhost'],
    clusterScopes: {
      team: { projects: ['team'], previewDomains: ['team.example.com'] },
    },
  };
  const onTeam = (project: string, baseline: Record<string, unknown>) => {
    const input = manifest({ baseline: { cluster: 'team', ...baseline } });
    for (const p of input.projects) p.name = project;
    const result = validateManifest(input, limits);
    return result.valid ? [] : result.problems.map(({ path, code }) => ({ path, code }));
  };

  it('takes only its own projects’ baselines, in its own namespaces, on its own preview domains', () => {
    expect(onTeam('team', { namespace: 'team-staging', preview_domain: 'team.example.com' })).toEqual([]);
    expect(onTeam('demo', { namespace: 'team-staging', preview_domain: 'team.example.com' })).toEqual([
      { path: '/projects/0/baselines/0/cluster', code: 'cluster_not_allowed' },
    ]);
    expect(onTeam('team', { namespace: 'staging', preview_domain: 'preview.localhost' })).toEqual([
      { path: '/projects/0/baselines/0/preview_domain', code: 'preview_domain_not_allowed' },
      { path: '/projects/0/baselines/0/namespace', code: 'namespace_not_allowed' },
    ]);
  });

  it('refuses a preview domain the installation does not serve previews on, as any name a manifest gives', () => {
    for (const domain of ['metadata.google.internal', 'localhost', 'intranet.example.com']) {
      expect(problemsOf(manifest({ baseline: { preview_domain: domain } }))).toEqual([
        { path: '/projects/0/baselines/0/preview_domain', code: 'preview_domain_not_allowed' },
      ]);
    }
  });
});
