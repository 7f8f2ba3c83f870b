export { fixedKubeConfig, kubeCluster } from './cluster.ts';
export { kubeConfigFromString, kubeconfigContext } from './config.ts';

export { clusterFromSettings } from './from-settings.ts';
