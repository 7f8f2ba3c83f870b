/** Only the cluster port and what core renders for it: no records, bodies or use cases. */
export {
  type ClusterObject,
  type Deployment,
  fieldManager,
  type ObjectRef,
  type Pod,
  refOf,
  type Service,
} from './objects.ts';
export { type ClusterPort, CompositionKinds, type LogOptions } from './ports.ts';
export { type ClusterLookup, type ClusterRegistry, clusterRegistry } from './registry.ts';
export {
  anchor,
  anchorName,
  compositionSelector,
  forkDeployment,
  forkSelector,
  forkService,
  meshRoute,
  ownerReference,
  pendingHeader,
  routingBaggage,
} from './render.ts';
export { interceptorGrant, interceptorRoute, type SleepingForkInput, scaledObject } from './sleep.ts';
