import type { Cluster } from '@svc/core';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromFile } from './config.ts';
import { eksKubeConfigSource } from './eks.ts';
import { type ClusterSettings, clusterSettingsFromEnvironment } from './settings.ts';

export function clusterFromSettings(settings: ClusterSettings): Cluster.ClusterPort {
  if ('kubeconfig' in settings) return kubeCluster(fixedKubeConfig(kubeConfigFromFile(settings.kubeconfig)));
  return kubeCluster(eksKubeConfigSource(settings));
}

/** `KUBECONFIG` (a file) when set, else the EKS cluster `EKS_CLUSTER_NAME` in `AWS_REGION`. */
export function clusterFromEnvironment(env: Record<string, string | undefined>): Cluster.ClusterPort {
  return clusterFromSettings(clusterSettingsFromEnvironment(env));
}
