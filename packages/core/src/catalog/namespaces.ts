/**
 * A namespace belongs to one project. A composition forks a baseline's Deployments in the
 * baseline's namespace, with the composition's own image: were two projects' baselines in one
 * namespace, a developer of one could run their image with the other's environment, secret mounts
 * and service account. So a project claims the namespaces its baselines name at apply, and the
 * installation lists where previews may go at all, the cluster's own namespaces and the service's
 * refused unless listed.
 */
import type { CatalogManifest } from './schema.ts';

/** Kubernetes' own namespaces: never a baseline's, unless the installation lists one. */
const reservedNamespaces = ['kube-system', 'kube-public', 'kube-node-lease', 'default'] as const;

export interface NamespacePolicy {
  /** The namespaces previews may use; null for any but the reserved ones and the service's. */
  allowed: readonly string[] | null;
  /** The namespace the service's own workloads (its Gateway) run in. */
  serviceNamespace: string;
  /** A cluster's own list (the stage's clusterAccess), in place of `allowed` on that cluster. */
  byCluster?: Readonly<Record<string, readonly string[]>>;
}

export const defaultNamespacePolicy: NamespacePolicy = { allowed: null, serviceNamespace: 'svc-system' };

/** The policy on one cluster: its own list if the installation gives it one. */
export function namespacePolicyOn(policy: NamespacePolicy, cluster: string): NamespacePolicy {
  const own = policy.byCluster?.[cluster];
  return own ? { allowed: own, serviceNamespace: policy.serviceNamespace } : policy;
}

export interface NamespaceKey {
  cluster: string;
  namespace: string;
}

/** Who holds a namespace: the project and the baseline that named it. */
export interface NamespaceClaim extends NamespaceKey {
  project: string;
  baseline: string;
}

export function namespaceAllowed(policy: NamespacePolicy, namespace: string): boolean {
  if (policy.allowed) return policy.allowed.includes(namespace);
  return (
    !(reservedNamespaces as readonly string[]).includes(namespace) && namespace !== policy.serviceNamespace
  );
}

function refusal(policy: NamespacePolicy, namespace: string, cluster: string): string {
  if (policy.allowed) {
    return `namespace "${namespace}" is not one previews may use on cluster ${cluster} (${policy.allowed.join(', ') || 'none'}): add it to the stage's previewNamespaces (or the cluster's, in clusterAccess) first`;
  }
  return `namespace "${namespace}" is reserved (${[...reservedNamespaces, policy.serviceNamespace].join(', ')}): previews never fork workloads there unless the stage's previewNamespaces lists it`;
}

export const sameNamespace = (a: NamespaceKey, b: NamespaceKey) =>
  a.cluster === b.cluster && a.namespace === b.namespace;

export const describeClaim = (claim: NamespaceClaim) =>
  `namespace "${claim.namespace}" (cluster ${claim.cluster}) belongs to project "${claim.project}" (baseline "${claim.baseline}")`;

/** The claims a project's baselines make, one per distinct namespace. */
export function claimsOf(
  project: string,
  baselines: readonly { name: string; cluster: string; namespace: string }[],
): NamespaceClaim[] {
  const claims: NamespaceClaim[] = [];
  for (const b of baselines) {
    const claim = { cluster: b.cluster, namespace: b.namespace, project, baseline: b.name };
    if (!claims.some((c) => sameNamespace(c, claim))) claims.push(claim);
  }
  return claims;
}

/**
 * What a manifest breaks of the two rules on its own: a namespace the installation does not allow,
 * and one namespace named by two of its projects.
 */
export function namespaceProblems(
  manifest: CatalogManifest,
  policy: NamespacePolicy,
): { path: string; code: string; message: string }[] {
  const problems: { path: string; code: string; message: string }[] = [];
  const seen: NamespaceClaim[] = [];
  manifest.projects.forEach((project, p) => {
    project.baselines.forEach((baseline, b) => {
      const path = `/projects/${p}/baselines/${b}/namespace`;
      const onCluster = namespacePolicyOn(policy, baseline.cluster);
      if (!namespaceAllowed(onCluster, baseline.namespace)) {
        problems.push({
          path,
          code: 'namespace_not_allowed',
          message: refusal(onCluster, baseline.namespace, baseline.cluster),
        });
      }
      const claim = {
        cluster: baseline.cluster,
        namespace: baseline.namespace,
        project: project.name,
        baseline: baseline.name,
      };
      const other = seen.find((c) => sameNamespace(c, claim) && c.project !== project.name);
      if (other) {
        problems.push({
          path,
          code: 'namespace_shared',
          message: `${describeClaim(other)} in this manifest; project "${project.name}" cannot use it too`,
        });
      }
      seen.push(claim);
    });
  });
  return problems;
}
