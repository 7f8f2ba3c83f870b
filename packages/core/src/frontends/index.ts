export { frontendRevisionPattern, maxResolveWaitSeconds } from './model.ts';
export type { FrontendStore } from './ports.ts';
export {
  BindFrontendBody,
  type FrontendBinding,
  FrontendBindingView,
  FrontendCheckBody,
  FrontendResolutionView,
  FrontendRevision,
  PublishFrontendBody,
} from './schema.ts';
export { bind, type FrontendDeps, publish, recordCheck, resolve } from './service.ts';
