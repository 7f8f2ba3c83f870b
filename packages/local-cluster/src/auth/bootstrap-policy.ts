// The default roles every Kubernetes cluster creates at start (upstream's bootstrappolicy), those
// that decide what any identity may do before an operator binds anything: cluster-admin for
// `system:masters`, discovery and the review APIs for every authenticated identity, health and
// version for everyone. Created when absent and put back when changed, as upstream reconciles them.

import { deepEqual } from '../api/json.ts';
import type { Api } from '../api/operations.ts';
import { RBAC_GROUP } from '../api/registry.ts';
import type { KubeObject } from '../api/types.ts';
import { Groups } from './identity.ts';
import type { PolicyRule } from './rules.ts';

const publicInfo = ['/livez', '/readyz', '/healthz', '/version', '/version/'];

const roles: Record<string, PolicyRule[]> = {
  'cluster-admin': [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ],
  'system:discovery': [
    {
      nonResourceURLs: [...publicInfo, '/openapi', '/openapi/*', '/api', '/api/*', '/apis', '/apis/*'],
      verbs: ['get'],
    },
  ],
  'system:basic-user': [
    {
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      verbs: ['create'],
    },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ],
  'system:public-info-viewer': [{ nonResourceURLs: publicInfo, verbs: ['get'] }],
};

const bindings: Record<string, readonly string[]> = {
  'cluster-admin': [Groups.masters],
  'system:discovery': [Groups.authenticated],
  'system:basic-user': [Groups.authenticated],
  'system:public-info-viewer': [Groups.authenticated, Groups.unauthenticated],
};

const metadata = (name: string) => ({
  name,
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
});

function ensure(api: Api, resource: string, name: string, content: Record<string, unknown>): void {
  const rt = api.rt(RBAC_GROUP, resource);
  const existing = api.tryGet(rt, undefined, name);
  const wanted: KubeObject = { metadata: metadata(name), ...content };
  if (!existing) api.create(rt, undefined, wanted, { fieldManager: 'local-cluster' });
  else if (Object.keys(content).some((key) => !deepEqual(existing[key], content[key]))) {
    api.update(rt, undefined, name, { ...existing, ...content }, { fieldManager: 'local-cluster' });
  }
}

export function ensureBootstrapPolicy(api: Api): void {
  for (const [name, rules] of Object.entries(roles)) ensure(api, 'clusterroles', name, { rules });
  for (const [name, groups] of Object.entries(bindings)) {
    ensure(api, 'clusterrolebindings', name, {
      roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name },
      subjects: groups.map((group) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: group })),
    });
  }
}
