export { check, type InstallationDeps } from './check.ts';
export { InstallationReport, InstallationSpec, InstallationStatus } from './spec.ts';
