/**
 * The installation check's look at the catalog itself: every baseline's namespace belongs to one
 * project and is one previews may use here. The catalog refuses both at apply; a catalog applied
 * before the rules (or before the installation's list changed) can still break them.
 */

import { type ClusterLimits, clusterScopeProblems } from '../catalog/clusters.ts';
import type { ProjectVersion } from '../catalog/model.ts';
import {
  claimsOf,
  describeClaim,
  type NamespacePolicy,
  namespaceAllowed,
  namespacePolicyOn,
  sameNamespace,
} from '../catalog/namespaces.ts';
import { CheckStatus } from '../checks/model.ts';
import type { Outcome } from './probes.ts';

export function catalogNamespacesVerdict(
  versions: readonly ProjectVersion[],
  policy: NamespacePolicy,
): Outcome {
  const claims = versions.flatMap((v) =>
    claimsOf(
      v.project,
      Object.values(v.baselines).map((b) => b.spec),
    ),
  );
  const shared = claims.filter((claim, i) =>
    claims.some((other, j) => j < i && sameNamespace(other, claim) && other.project !== claim.project),
  );
  const notAllowed = claims.filter(
    (claim) => !namespaceAllowed(namespacePolicyOn(policy, claim.cluster), claim.namespace),
  );
  const evidence = {
    projects: versions.length,
    shared: shared.map((c) => ({ ...c, with: claims.find((o) => sameNamespace(o, c))?.project ?? null })),
    not_allowed: notAllowed,
    allowed: policy.allowed,
  };
  if (shared.length === 0 && notAllowed.length === 0) {
    return {
      status: CheckStatus.Passed,
      message: 'every baseline namespace belongs to one project and is one previews may use',
      evidence,
    };
  }
  const problems = [
    ...shared.map(
      (c) =>
        `${describeClaim(claims.find((o) => sameNamespace(o, c)) ?? c)} and also to project "${c.project}"`,
    ),
    ...notAllowed.map(
      (c) =>
        `project "${c.project}" baseline "${c.baseline}" uses namespace "${c.namespace}", which previews may not use`,
    ),
  ];
  return { status: CheckStatus.Failed, message: problems.join('; '), evidence };
}

/**
 * The catalog against what each cluster takes: a baseline applied before its cluster was scoped to
 * projects, or before preview domains were checked, is refused by no apply until it changes.
 */
export function catalogClustersVerdict(versions: readonly ProjectVersion[], limits: ClusterLimits): Outcome {
  const problems = versions.flatMap((v) =>
    Object.values(v.baselines).flatMap((b) =>
      clusterScopeProblems(v.project, b.spec, limits, `${v.project}/${b.spec.name}`),
    ),
  );
  const evidence = { projects: versions.length, problems };
  if (problems.length === 0) {
    return {
      status: CheckStatus.Passed,
      message: 'every baseline is on a cluster that takes its project, on a domain previews answer on',
      evidence,
    };
  }
  return {
    status: CheckStatus.Failed,
    message: problems.map((p) => `baseline ${p.path.replace(/\/[a-z_]+$/, '')}: ${p.message}`).join('; '),
    evidence,
  };
}
