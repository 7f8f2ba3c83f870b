/**
 * Which projects a cluster takes, and on which domains its previews answer. A team's own cluster
 * added to an installation is that team's: another project's maintainer may not put baselines (and
 * so run images) there. And a baseline's preview domain is where the worker's routing check sends a
 * request, whose status a project's viewers read: it may only be one the installation serves
 * previews on, never any name a manifest gives.
 */

/** What one cluster of the installation takes (the stage's `clusterAccess`, `CLUSTERS` entries). */
interface ClusterScope {
  /** The projects whose baselines may run on it; null: every project. */
  projects: readonly string[] | null;
  /** The domains its previews answer on; null: the installation's. */
  previewDomains: readonly string[] | null;
}

export interface ClusterLimits {
  /** The domains previews answer on (the stage's `previewDomain`), unless a cluster has its own. */
  previewDomains: readonly string[];
  /** Per cluster name; a cluster absent here takes every project on the installation's domains. */
  clusterScopes: Readonly<Record<string, ClusterScope>>;
}

interface ScopeProblem {
  path: string;
  code: 'cluster_not_allowed' | 'preview_domain_not_allowed';
  message: string;
}

const listed = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ') || 'none';

/** What a baseline of `project` breaks of its cluster's scope, its paths under `at`. */
export function clusterScopeProblems(
  project: string,
  baseline: { cluster: string; preview_domain: string },
  limits: ClusterLimits,
  at: string,
): ScopeProblem[] {
  const scope = limits.clusterScopes[baseline.cluster];
  const problems: ScopeProblem[] = [];
  if (scope?.projects && !scope.projects.includes(project)) {
    problems.push({
      path: `${at}/cluster`,
      code: 'cluster_not_allowed',
      message: `cluster "${baseline.cluster}" takes baselines of projects ${listed(scope.projects)} only (the stage's clusterAccess): project "${project}" may not run previews there`,
    });
  }
  const domains = scope?.previewDomains ?? limits.previewDomains;
  if (!domains.includes(baseline.preview_domain.toLowerCase())) {
    problems.push({
      path: `${at}/preview_domain`,
      code: 'preview_domain_not_allowed',
      message: `preview domain "${baseline.preview_domain}" is not one previews answer on here (${listed(domains)} on cluster ${baseline.cluster}): the stage's previewDomain, or the cluster's preview_domains, names the domains its gateway serves`,
    });
  }
  return problems;
}
