export { check } from './check.ts';
export { rbacRules } from './permissions.ts';
export type { InstallationDeps } from './ports.ts';
export { InstallationReport, InstallationSpec, InstallationStatus } from './schema.ts';
