/** Reads only, one file per read with its view: no records or writes of its own. */
export { DiagnosisView, diagnose } from './diagnosis.ts';
export { componentLogs, LogSnapshot, logLimits } from './logs.ts';
export { ObservabilityView, observability } from './observability.ts';
export type { InsightDeps } from './ports.ts';
