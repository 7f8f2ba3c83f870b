export type { SourceRef } from './model.ts';
export type { BuildStore } from './ports.ts';
export { type Build, BuildList, BuildView, PublishBuildBody } from './schema.ts';
export {
  type BuildDeps,
  publish,
  resolveSource,
  SourceResolutionView,
} from './service.ts';
