export { frontendRevisionPattern, maxResolveWaitSeconds } from './model.ts';
export type { FrontendStore } from './ports.ts';
export {
  BindFrontendBody,
  type FrontendBinding,
  FrontendBindingView,
  FrontendResolutionView,
  FrontendRevision,
  PublishFrontendBody,
} from './schema.ts';
export { bind, type FrontendDeps, publish, resolve } from './service.ts';
