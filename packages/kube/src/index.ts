export { fixedKubeConfig, kubeCluster } from './cluster.ts';
export { kubeConfigFromString } from './config.ts';

export { clusterFromEnvironment } from './environment.ts';
