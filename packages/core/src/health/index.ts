/** Only the /healthz answer and the probe every dependency of the service is checked by. */
export {
  anonymousDependencies,
  clusterDependency,
  type DependencyCheck,
  type DependencyReport,
  DependencyStatus,
  HealthReport,
} from './report.ts';
