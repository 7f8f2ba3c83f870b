import { describe, expect, it } from 'vitest';
import { claimsOf, defaultNamespacePolicy, namespaceAllowed, namespaceProblems } from './namespaces.ts';
import type { CatalogManifest } from './schema.ts';

const manifestOf = (projects: { name: string; namespaces: string[] }[]) =>
  ({
    projects: projects.map((p) => ({
      name: p.name,
      baselines: p.namespaces.map((namespace, i) => ({ name: `b${i}`, namespace, cluster: 'local' })),
    })),
  }) as unknown as CatalogManifest;

describe('namespaceAllowed', () => {
  it('refuses the cluster’s own namespaces and the service’s unless the installation lists them', () => {
    for (const ns of ['kube-system', 'kube-public', 'kube-node-lease', 'default', 'svc-system']) {
      expect(namespaceAllowed(defaultNamespacePolicy, ns), ns).toBe(false);
    }
    expect(namespaceAllowed(defaultNamespacePolicy, 'staging')).toBe(true);
    const listed = { allowed: ['staging', 'default'], serviceNamespace: 'svc-system' };
    expect(namespaceAllowed(listed, 'default')).toBe(true);
    expect(namespaceAllowed(listed, 'qa')).toBe(false);
  });
});

describe('namespaceProblems', () => {
  it('names each baseline in a namespace the installation does not allow', () => {
    const problems = namespaceProblems(manifestOf([{ name: 'a', namespaces: ['staging', 'kube-system'] }]), {
      allowed: null,
      serviceNamespace: 'svc-system',
    });
    expect(problems.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: '/projects/0/baselines/1/namespace', code: 'namespace_not_allowed' },
    ]);
    expect(problems[0]?.message).toContain("stage's previewNamespaces");
  });

  it('refuses two projects of one manifest in one namespace, naming the first', () => {
    const problems = namespaceProblems(
      manifestOf([
        { name: 'a', namespaces: ['staging'] },
        { name: 'b', namespaces: ['staging'] },
      ]),
      defaultNamespacePolicy,
    );
    expect(problems).toEqual([
      {
        path: '/projects/1/baselines/0/namespace',
        code: 'namespace_shared',
        message: expect.stringContaining('belongs to project "a" (baseline "b0")'),
      },
    ]);
  });

  it('lets one project name one namespace from several baselines, claiming it once', () => {
    const manifest = manifestOf([{ name: 'a', namespaces: ['staging', 'staging'] }]);
    expect(namespaceProblems(manifest, defaultNamespacePolicy)).toEqual([]);
    const baselines = manifest.projects[0]?.baselines ?? [];
    expect(claimsOf('a', baselines)).toHaveLength(1);
  });
});
