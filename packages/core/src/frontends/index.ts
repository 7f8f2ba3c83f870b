export {
  BindFrontendBody,
  type FrontendBinding,
  FrontendBindingView,
  FrontendCheckBody,
  type FrontendResolution,
  FrontendResolutionView,
  FrontendRevision,
  type FrontendStore,
  frontendRevisionPattern,
  maxResolveWaitSeconds,
  PublishFrontendBody,
} from './model.ts';
export { type BindingRef, bind, type FrontendDeps, publish, recordCheck, resolve } from './service.ts';
