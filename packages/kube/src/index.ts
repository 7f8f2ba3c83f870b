export { fixedKubeConfig, type KubeConfigSource, kubeCluster } from './cluster.ts';
export { kubeConfigFromFile, kubeConfigFromString, tokenKubeConfig } from './config.ts';
export { eksKubeConfigSource, eksToken } from './eks.ts';
export { clusterFromEnvironment } from './environment.ts';
export { defaultRetry, type RetryPolicy, withRetry } from './retry.ts';
