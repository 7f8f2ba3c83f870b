/** Off the recipe's use-case files: the check and the drain each have theirs, with their rules. */
export { check } from './check.ts';
export { DrainReport, DrainRequest, drain } from './drain.ts';
export { clusterGroups, rbacRules } from './permissions.ts';
export type { InstallationDeps } from './ports.ts';
export { InstallationReport, InstallationSpec, InstallationStatus } from './schema.ts';
