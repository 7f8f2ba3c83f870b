export type { ProjectVersion, Revisioned } from './model.ts';
export {
  defaultNamespacePolicy,
  describeClaim,
  type NamespaceClaim,
  type NamespaceKey,
  type NamespacePolicy,
} from './namespaces.ts';
export type { CatalogStore } from './ports.ts';
export {
  ApplyView,
  Baseline,
  BaselineView,
  CatalogManifest,
  CatalogValidationView,
  ComponentProfile,
  ComponentView,
  ProjectView,
} from './schema.ts';
export {
  apply,
  type CatalogDeps,
  listBaselines,
  listComponents,
  listProjects,
  requireProject,
  validate,
} from './service.ts';
export type { ManifestLimits } from './validate.ts';
