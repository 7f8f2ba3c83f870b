export { check } from './check.ts';
export { DrainReport, DrainRequest, drain } from './drain.ts';
export { clusterGroups, rbacRules } from './permissions.ts';
export type { InstallationDeps } from './ports.ts';
export { InstallationReport, InstallationSpec, InstallationStatus } from './schema.ts';
