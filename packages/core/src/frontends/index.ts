export {
  BindFrontendBody,
  type FrontendBinding,
  FrontendBindingView,
  FrontendCheckBody,
  type FrontendResolution,
  FrontendResolutionView,
  FrontendRevision,
  frontendRevisionPattern,
  maxResolveWaitSeconds,
  PublishFrontendBody,
} from './model.ts';
export type { FrontendStore } from './ports.ts';
export { type BindingRef, bind, type FrontendDeps, publish, recordCheck, resolve } from './service.ts';
