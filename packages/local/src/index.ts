export { freePort, portInUse } from './ports.ts';
export { type ProvisionedResources, provision } from './provision.ts';
export { sourceBuild } from './release.ts';
export { type Stack, type StackOptions, startStack } from './stack.ts';
