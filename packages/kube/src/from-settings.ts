import type { Cluster } from '@svc/core';
import { fixedKubeConfig, kubeCluster } from './cluster.ts';
import { kubeConfigFromFile } from './config.ts';
import { eksKubeConfigSource } from './eks.ts';
import type { ClusterSettings } from './settings.ts';

/** The cluster where the settings say: a kubeconfig file, or an EKS cluster reached with the function's role. */
export function clusterFromSettings(settings: ClusterSettings): Cluster.ClusterPort {
  if ('kubeconfig' in settings) return kubeCluster(fixedKubeConfig(kubeConfigFromFile(settings.kubeconfig)));
  return kubeCluster(eksKubeConfigSource(settings));
}
