export type { LocalUser } from './auth/identity.ts';
export { type LocalCluster, type LocalClusterOptions, startLocalCluster } from './cluster.ts';
export { gatewayFetch } from './gateway/gateway-fetch.ts';
export { DEPENDENCIES_ANNOTATION } from './gateway/mesh.ts';
