export type { ResourceDeclaration } from './api/registry.ts';
export { type LocalCluster, type LocalClusterOptions, startLocalCluster } from './cluster.ts';
