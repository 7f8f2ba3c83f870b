export { check, type InstallationDeps } from './check.ts';
export { rbacRules } from './permissions.ts';
export { InstallationReport, InstallationSpec, InstallationStatus } from './spec.ts';
