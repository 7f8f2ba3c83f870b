/**
 * The kube part of the service's settings: the clusters the stage may use and where each is,
 * checked at start before any client is loaded (the API loads @kubernetes/client-node on its first
 * call to a cluster only).
 */
import { ClusterName, variablePath } from '@svc/core';
import * as v from 'valibot';

/** Where one cluster is: a kubeconfig file (and its context), or an EKS cluster reached with the function's role. */
export type ClusterSettings =
  | { kubeconfig: string; context?: string }
  | { clusterName: string; region: string };

/** What a cluster takes: which projects' baselines, in which namespaces, previews on which domains (null: the installation's). */
interface ClusterAccess {
  projects: string[] | null;
  previewNamespaces: string[] | null;
  previewDomains: string[] | null;
}

/** A cluster as the catalog's baselines name it (`cluster`), where it is, and its preview URL. */
interface NamedCluster {
  name: string;
  where: ClusterSettings;
  /** `{id}`/`{domain}` template of its previews' URL; null: the stage's `PREVIEW_URL_TEMPLATE`. */
  previewUrlTemplate: string | null;
  access: ClusterAccess;
}

/** A cluster that takes every project, where and on what the installation allows. */
const anyAccess: ClusterAccess = { projects: null, previewNamespaces: null, previewDomains: null };

export interface KubeSettings {
  /** At least one, names unique. */
  clusters: NamedCluster[];
}

/** What a kubeconfig-only stage (KUBECONFIG alone, the local stack's) calls its one cluster. */
export const localClusterName = 'local';

/** Whether `name` can name a cluster in `CLUSTERS`: core's one rule. */
export const isClusterName = (name: string) => v.is(ClusterName, name);

const nonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));

/** One entry of `CLUSTERS`: exactly one of `kubeconfig` or `eks_cluster`. */
const ClusterEntry = v.strictObject({
  kubeconfig: v.optional(nonEmpty),
  /** A context of that kubeconfig; absent: its current context. */
  context: v.optional(nonEmpty),
  eks_cluster: v.optional(
    v.pipe(v.string(), v.regex(/^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$/, 'must be an EKS cluster name')),
  ),
  /** Absent: the function's own `AWS_REGION`. */
  region: v.optional(nonEmpty),
  preview_url: v.optional(v.pipe(v.string(), v.includes('{id}', 'must include {id}'))),
  /** The projects whose baselines may run on it; absent: every project. */
  projects: v.optional(
    v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be project names'))),
  ),
  /** The namespaces previews may use on it, in place of `PREVIEW_NAMESPACES`. */
  preview_namespaces: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.regex(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, 'must be namespace names'))),
      v.minLength(1),
    ),
  ),
  /** The domains its previews answer on, in place of `PREVIEW_DOMAINS`. */
  preview_domains: v.optional(
    v.pipe(
      v.array(v.pipe(v.string(), v.toLowerCase(), v.regex(/^[a-z0-9.-]{1,253}$/, 'must be DNS names'))),
      v.minLength(1),
    ),
  ),
});
type ClusterEntry = v.InferOutput<typeof ClusterEntry>;

const ClustersVariable = v.pipe(
  v.string(),
  v.parseJson(undefined, 'must be JSON'),
  v.record(v.string(), ClusterEntry, 'must be an object of cluster names'),
);

const KubeVariables = v.object({
  CLUSTERS: v.optional(ClustersVariable),
  KUBECONFIG: v.optional(v.string()),
  EKS_CLUSTER_NAME: v.optional(v.string()),
  AWS_REGION: v.optional(v.string()),
});
type KubeVariables = v.InferOutput<typeof KubeVariables>;

type Refuse = (message: string, ...fields: string[]) => void;

/** One `CLUSTERS` entry as settings; null when it is refused (each problem named). */
function entrySettings(
  name: string,
  entry: ClusterEntry,
  region: string | undefined,
  refuse: Refuse,
): NamedCluster | null {
  if (!isClusterName(name)) {
    refuse('is not a cluster name: 1–100 printable characters without spaces', name);
    return null;
  }
  const previewUrlTemplate = entry.preview_url ?? null;
  const access = {
    projects: entry.projects ?? null,
    previewNamespaces: entry.preview_namespaces ?? null,
    previewDomains: entry.preview_domains ?? null,
  };
  if (entry.kubeconfig !== undefined && entry.eks_cluster === undefined) {
    if (entry.region !== undefined) refuse('belongs with eks_cluster, not a kubeconfig', name, 'region');
    const where = { kubeconfig: entry.kubeconfig, ...(entry.context ? { context: entry.context } : {}) };
    return entry.region === undefined ? { name, where, previewUrlTemplate, access } : null;
  }
  if (entry.eks_cluster !== undefined && entry.kubeconfig === undefined) {
    if (entry.context !== undefined) refuse('belongs with a kubeconfig, not eks_cluster', name, 'context');
    const clusterRegion = entry.region ?? region;
    if (!clusterRegion) refuse('is not set, and neither is AWS_REGION', name, 'region');
    if (!clusterRegion || entry.context !== undefined) return null;
    return {
      name,
      where: { clusterName: entry.eks_cluster, region: clusterRegion },
      previewUrlTemplate,
      access,
    };
  }
  refuse('must have exactly one of kubeconfig or eks_cluster: where the cluster is', name);
  return null;
}

/** The clusters the variables name; null when something is refused. */
function kubeSettings(
  env: KubeVariables,
  refuse: (message: string, variable: string, ...fields: string[]) => void,
) {
  if (env.CLUSTERS) {
    const clusters = Object.entries(env.CLUSTERS).map(([name, entry]) =>
      entrySettings(name, entry, env.AWS_REGION, (message, ...fields) =>
        refuse(message, 'CLUSTERS', ...fields),
      ),
    );
    if (clusters.length === 0) refuse('must name at least one cluster', 'CLUSTERS');
    const named = clusters.filter((c): c is NamedCluster => c !== null);
    return named.length === clusters.length && named.length > 0 ? { clusters: named } : null;
  }
  if (env.KUBECONFIG) {
    return {
      clusters: [
        {
          name: localClusterName,
          where: { kubeconfig: env.KUBECONFIG },
          previewUrlTemplate: null,
          access: anyAccess,
        },
      ],
    };
  }
  if (env.EKS_CLUSTER_NAME && env.AWS_REGION) {
    const where = { clusterName: env.EKS_CLUSTER_NAME, region: env.AWS_REGION };
    return { clusters: [{ name: env.EKS_CLUSTER_NAME, where, previewUrlTemplate: null, access: anyAccess }] };
  }
  refuse(
    'or KUBECONFIG, or EKS_CLUSTER_NAME (with AWS_REGION) must be set: where the clusters are',
    'CLUSTERS',
  );
  return null;
}

/**
 * `CLUSTERS` (JSON: name → `{ kubeconfig, context? }` or `{ eks_cluster, region? }`, each with an
 * optional `preview_url`, and optionally what it takes: `projects`, `preview_namespaces`,
 * `preview_domains`) when set; else one cluster: `KUBECONFIG` (a file, named `local`), or the
 * EKS cluster `EKS_CLUSTER_NAME` in `AWS_REGION` (named after it). Problems name the variable and
 * the cluster, never a value.
 */
export const KubeEnvironment = v.pipe(
  KubeVariables,
  v.rawTransform(({ dataset, addIssue, NEVER }): KubeSettings => {
    const env = dataset.value;
    const settings = kubeSettings(env, (message, variable, ...fields) =>
      addIssue({ message, path: variablePath(env, variable, ...fields) }),
    );
    return settings ?? NEVER;
  }),
);
