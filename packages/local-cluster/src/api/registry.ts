// The resource types the server knows: built-ins, types declared in options, and types added at run
// time by CustomResourceDefinitions. Discovery documents are generated from here.

export interface ResourceType {
  group: string;
  version: string;
  /** Plural, lowercase: the name in URLs. */
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  namespaced: boolean;
  shortNames: readonly string[];
  categories: readonly string[];
  hasStatus: boolean;
  hasScale: boolean;
  /**
   * Built-in types carry strategic-merge metadata; for the others a strategic-merge patch is refused
   * (415), as a real API server refuses it for custom resources.
   */
  builtin: boolean;
  /** Verbs listed in discovery and served; absent = every verb of a stored type. */
  verbs?: readonly string[];
}

/** A type to store generically, declared in the cluster's options. */
export interface ResourceDeclaration {
  group: string;
  version: string;
  kind: string;
  /** Defaults to the lowercased kind plus "s". */
  plural?: string;
  namespaced?: boolean;
  shortNames?: string[];
  hasStatus?: boolean;
}

interface BuiltinSpec {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  hasStatus?: boolean;
  hasScale?: boolean;
  categories?: string[];
  verbs?: string[];
}

/** The group of Roles, ClusterRoles and their bindings. */
export const RBAC_GROUP = 'rbac.authorization.k8s.io';

function review(resource: string, kind: string, namespaced: boolean): BuiltinSpec {
  return { group: 'authorization.k8s.io', version: 'v1', resource, kind, namespaced, verbs: ['create'] };
}

const BUILTINS: readonly BuiltinSpec[] = [
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    namespaced: false,
    shortNames: ['ns'],
    hasStatus: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'nodes',
    kind: 'Node',
    namespaced: false,
    shortNames: ['no'],
    hasStatus: true,
  },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    namespaced: true,
    shortNames: ['po'],
    hasStatus: true,
    categories: ['all'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    namespaced: true,
    shortNames: ['svc'],
    hasStatus: true,
    categories: ['all'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'endpoints',
    kind: 'Endpoints',
    namespaced: true,
    shortNames: ['ep'],
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    namespaced: true,
    shortNames: ['cm'],
  },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', namespaced: true },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    namespaced: true,
    shortNames: ['sa'],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    namespaced: true,
    shortNames: ['deploy'],
    hasStatus: true,
    hasScale: true,
    categories: ['all'],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'replicasets',
    kind: 'ReplicaSet',
    namespaced: true,
    shortNames: ['rs'],
    hasStatus: true,
    hasScale: true,
    categories: ['all'],
  },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    namespaced: true,
  },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', namespaced: true },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    hasStatus: true,
  },
  // What identities may do, evaluated by src/auth/rbac.ts.
  { group: RBAC_GROUP, version: 'v1', resource: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  {
    group: RBAC_GROUP,
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    namespaced: false,
  },
  { group: RBAC_GROUP, version: 'v1', resource: 'roles', kind: 'Role', namespaced: true },
  { group: RBAC_GROUP, version: 'v1', resource: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  // Create-only and never stored: the answer says what the caller (or the subject named) may do.
  review('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false),
  review('selfsubjectrulesreviews', 'SelfSubjectRulesReview', false),
  review('subjectaccessreviews', 'SubjectAccessReview', false),
  review('localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
  // Who the caller is (kubectl auth whoami); create only, never stored.
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    namespaced: false,
    verbs: ['create'],
  },
];

// Gateway API types are custom resources on a real cluster, so they are not "builtin" here either.
const GATEWAY_API: readonly BuiltinSpec[] = [
  {
    group: 'gateway.networking.k8s.io',
    version: 'v1',
    resource: 'gatewayclasses',
    kind: 'GatewayClass',
    namespaced: false,
    shortNames: ['gc'],
    hasStatus: true,
    categories: ['gateway-api'],
  },
  {
    group: 'gateway.networking.k8s.io',
    version: 'v1',
    resource: 'gateways',
    kind: 'Gateway',
    namespaced: true,
    shortNames: ['gtw'],
    hasStatus: true,
    categories: ['gateway-api'],
  },
  {
    group: 'gateway.networking.k8s.io',
    version: 'v1',
    resource: 'httproutes',
    kind: 'HTTPRoute',
    namespaced: true,
    hasStatus: true,
    categories: ['gateway-api'],
  },
  {
    group: 'gateway.networking.k8s.io',
    version: 'v1beta1',
    resource: 'referencegrants',
    kind: 'ReferenceGrant',
    namespaced: true,
    shortNames: ['refgrant'],
    categories: ['gateway-api'],
  },
];

function make(spec: BuiltinSpec, builtin: boolean): ResourceType {
  return {
    group: spec.group,
    version: spec.version,
    resource: spec.resource,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    hasStatus: spec.hasStatus ?? false,
    hasScale: spec.hasScale ?? false,
    builtin,
    ...(spec.verbs ? { verbs: spec.verbs } : {}),
  };
}

/** The Gateway API kinds the cluster serves itself (it also publishes CRDs for them). */
export function gatewayApiTypes(): ResourceType[] {
  return GATEWAY_API.map((spec) => make(spec, false));
}

export function groupVersion(rt: { group: string; version: string }): string {
  return rt.group === '' ? rt.version : `${rt.group}/${rt.version}`;
}

/** "deployments.apps", "pods": how Kubernetes names a resource in error messages. */
export function qualifiedResource(rt: ResourceType): string {
  return rt.group === '' ? rt.resource : `${rt.resource}.${rt.group}`;
}

export function storageKey(rt: ResourceType): string {
  return `${rt.group}/${rt.resource}`;
}

export class Registry {
  private readonly types: ResourceType[] = [];

  constructor(declared: readonly ResourceDeclaration[] = []) {
    for (const spec of BUILTINS) this.add(make(spec, true));
    for (const rt of gatewayApiTypes()) this.add(rt);
    for (const d of declared) this.add(fromDeclaration(d));
  }

  add(rt: ResourceType): void {
    const existing = this.types.findIndex(
      (t) => t.group === rt.group && t.version === rt.version && t.resource === rt.resource,
    );
    if (existing >= 0) this.types.splice(existing, 1, rt);
    else this.types.push(rt);
  }

  remove(group: string, resource: string): void {
    for (let i = this.types.length - 1; i >= 0; i--) {
      const t = this.types[i];
      if (t && t.group === group && t.resource === resource && !t.builtin) this.types.splice(i, 1);
    }
  }

  all(): readonly ResourceType[] {
    return this.types;
  }

  find(group: string, version: string, resource: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.version === version && t.resource === resource);
  }

  /** Any served version of a group/resource: controllers address types by group and resource. */
  byResource(group: string, resource: string): ResourceType {
    const rt = this.types.find((t) => t.group === group && t.resource === resource);
    if (!rt) throw new Error(`unknown resource ${resource}.${group}`);
    return rt;
  }

  byKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => groupVersion(t) === apiVersion && t.kind === kind);
  }

  byGroupKind(group: string, kind: string): ResourceType | undefined {
    return this.types.find((t) => t.group === group && t.kind === kind);
  }

  groups(): { name: string; versions: string[] }[] {
    const out: { name: string; versions: string[] }[] = [];
    for (const t of this.types) {
      if (t.group === '') continue;
      let g = out.find((x) => x.name === t.group);
      if (!g) {
        g = { name: t.group, versions: [] };
        out.push(g);
      }
      if (!g.versions.includes(t.version)) g.versions.push(t.version);
    }
    for (const g of out) g.versions.sort(compareVersions);
    return out;
  }

  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.types.filter((t) => t.group === group && t.version === version);
  }
}

function fromDeclaration(d: ResourceDeclaration): ResourceType {
  const plural = d.plural ?? `${d.kind.toLowerCase()}s`;
  return make(
    {
      group: d.group,
      version: d.version,
      resource: plural,
      kind: d.kind,
      namespaced: d.namespaced ?? true,
      shortNames: d.shortNames ?? [],
      hasStatus: d.hasStatus ?? false,
    },
    false,
  );
}

/** Kubernetes version priority: GA before beta before alpha, higher numbers first. */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stability = m[2] === undefined ? 0 : m[2] === 'beta' ? 1 : 2;
    return [stability, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  const [ra, rb] = [rank(a), rank(b)];
  for (let i = 0; i < 3; i++) {
    const d = (ra[i] ?? 0) - (rb[i] ?? 0);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}
