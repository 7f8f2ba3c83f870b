/** Where the cluster is, from the environment: checked at start, before any client is loaded. */
export type ClusterSettings = { kubeconfig: string } | { clusterName: string; region: string };

/** `KUBECONFIG` (a file) when set, else the EKS cluster `EKS_CLUSTER_NAME` in `AWS_REGION`. */
export function clusterSettingsFromEnvironment(env: Record<string, string | undefined>): ClusterSettings {
  if (env.KUBECONFIG) return { kubeconfig: env.KUBECONFIG };
  if (!env.EKS_CLUSTER_NAME || !env.AWS_REGION) {
    throw new Error('invalid environment: KUBECONFIG or EKS_CLUSTER_NAME (with AWS_REGION) must be set');
  }
  return { clusterName: env.EKS_CLUSTER_NAME, region: env.AWS_REGION };
}
