export { fixedKubeConfig, kubeCluster } from './cluster.ts';
export { kubeConfigFromString } from './config.ts';

export { clusterFromSettings } from './from-settings.ts';
