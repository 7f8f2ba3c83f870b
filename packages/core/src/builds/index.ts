export {
  type Build,
  BuildList,
  type BuildStore,
  BuildView,
  PublishBuildBody,
  type SourceRef,
} from './model.ts';
export {
  type BuildDeps,
  publish,
  ResolveSourceQuery,
  resolveSource,
  type SourceResolution,
  SourceResolutionView,
} from './service.ts';
