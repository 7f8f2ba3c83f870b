import type { Cluster } from '@svc/core';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromFile } from './config.ts';
import { eksKubeConfigSource } from './eks.ts';

/** `KUBECONFIG` (a file) when set, else the EKS cluster `EKS_CLUSTER_NAME` in `AWS_REGION`. */
export function clusterFromEnvironment(env: Record<string, string | undefined>): Cluster.ClusterPort {
  if (env.KUBECONFIG) return kubeCluster(fixedKubeConfig(kubeConfigFromFile(env.KUBECONFIG)));
  if (!env.EKS_CLUSTER_NAME || !env.AWS_REGION) {
    throw new Error('invalid environment: KUBECONFIG or EKS_CLUSTER_NAME (with AWS_REGION) must be set');
  }
  return kubeCluster(eksKubeConfigSource({ clusterName: env.EKS_CLUSTER_NAME, region: env.AWS_REGION }));
}
