export type { ResourceDeclaration } from './api/registry.ts';
export { type LocalCluster, type LocalClusterOptions, startLocalCluster } from './cluster.ts';
export { type GatewayFetchInit, gatewayFetch } from './gateway/gateway-fetch.ts';
export { DEPENDENCIES_ANNOTATION } from './gateway/mesh.ts';
