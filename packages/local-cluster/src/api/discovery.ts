// Discovery documents (plain APIVersions / APIGroupList / APIResourceList; kubectl falls back to
// these when aggregated discovery is not offered).

import { compareVersions, groupVersion, type Registry, type ResourceType } from './registry.ts';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-local',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.23.0',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string): unknown {
  return {
    kind: 'APIVersions',
    apiVersion: 'v1',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function apiGroup(name: string, versions: string[]): unknown {
  const sorted = [...versions].sort(compareVersions);
  const preferred = sorted[0] ?? 'v1';
  return {
    name,
    versions: sorted.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
    preferredVersion: { groupVersion: `${name}/${preferred}`, version: preferred },
  };
}

export function apiGroupList(registry: Registry): unknown {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => apiGroup(g.name, g.versions)),
  };
}

export function apiGroupDocument(registry: Registry, group: string): unknown {
  const g = registry.groups().find((x) => x.name === group);
  if (!g) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...(apiGroup(g.name, g.versions) as object) };
}

function resourceEntries(rt: ResourceType): unknown[] {
  const main = {
    name: rt.resource,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: rt.verbs ?? VERBS,
    ...(rt.shortNames.length > 0 ? { shortNames: rt.shortNames } : {}),
    ...(rt.categories.length > 0 ? { categories: rt.categories } : {}),
  };
  const out: unknown[] = [main];
  if (rt.hasStatus) {
    out.push({
      name: `${rt.resource}/status`,
      singularName: '',
      namespaced: rt.namespaced,
      kind: rt.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (rt.hasScale) {
    out.push({
      name: `${rt.resource}/scale`,
      singularName: '',
      namespaced: rt.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (rt.group === '' && rt.resource === 'pods') {
    out.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
  }
  return out;
}

export function apiResourceList(registry: Registry, group: string, version: string): unknown {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupVersion({ group, version }),
    resources: types.flatMap(resourceEntries),
  };
}
