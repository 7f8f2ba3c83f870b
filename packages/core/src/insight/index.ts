export { CompositionCheckBody, recordCheck } from './checks.ts';
export type { InsightDeps } from './deps.ts';
export { DiagnosisView, diagnose } from './diagnosis.ts';
export { componentLogs, LogSnapshot, logLimits } from './logs.ts';
export { ObservabilityView, observability } from './observability.ts';
export { listVerification } from './verification.ts';
