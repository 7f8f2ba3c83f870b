import * as v from 'valibot';
import { AuthMode } from '../auth/identity.ts';

/** A backing service the API depends on, probed by `GET /healthz`. */
export interface DependencyCheck {
  /** `dynamodb`, `sqs`, or `<kind>:<name>` for one of several of a kind (`cluster:staging`). */
  readonly name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check(signal: AbortSignal): Promise<void>;
}

/** The probe of one cluster, named after it: `cluster:<name>`. */
export const clusterDependency = (cluster: string) => `cluster:${cluster}`;

export const DependencyStatus = { Ok: 'ok', Error: 'error', Unconfigured: 'unconfigured' } as const;
export type DependencyStatus = (typeof DependencyStatus)[keyof typeof DependencyStatus];

const DependencyReport = v.object({
  status: v.enum(DependencyStatus),
  latency_ms: v.nullable(v.number()),
  /** A short outward cause (`connection failed (ECONNREFUSED)`); what the dependency said is logged. */
  error: v.nullable(v.string()),
});
export type DependencyReport = v.InferOutput<typeof DependencyReport>;

/**
 * `GET /healthz`: 200 when every dependency answers, 503 `degraded` otherwise. `dependencies` holds
 * `dynamodb`, `sqs` and, for a caller the auth mode identifies, `cluster:<name>` for each cluster;
 * anyone else gets one `cluster` entry for all of them, which names none.
 */
export const HealthReport = v.object({
  status: v.picklist(['ok', 'degraded']),
  dependencies: v.record(v.string(), DependencyReport),
  auth: v.object({ mode: v.enum(AuthMode), warning: v.nullable(v.string()) }),
});
export type HealthReport = v.InferOutput<typeof HealthReport>;

/**
 * What a caller nobody identified may see: every `<kind>:<name>` entry folded into one `<kind>`
 * entry (an error if any of them failed, the slowest latency, the distinct causes counted), so the
 * report tells a monitor that a cluster is down without telling the internet what the clusters are.
 */
export function anonymousDependencies(
  dependencies: Readonly<Record<string, DependencyReport>>,
): Record<string, DependencyReport> {
  const kinds = new Map<string, DependencyReport[]>();
  for (const [name, report] of Object.entries(dependencies)) {
    const kind = name.split(':', 1)[0] as string;
    kinds.set(kind, [...(kinds.get(kind) ?? []), report]);
  }
  return Object.fromEntries([...kinds].map(([kind, reports]) => [kind, folded(kind, reports)]));
}

function folded(kind: string, reports: readonly DependencyReport[]): DependencyReport {
  if (reports.length === 1) return reports[0] as DependencyReport;
  const latencies = reports.flatMap((r) => (r.latency_ms === null ? [] : [r.latency_ms]));
  const failed = reports.filter((r) => r.status === DependencyStatus.Error);
  const causes = [...new Set(failed.map((r) => r.error ?? 'no cause given'))];
  const status = failed.length
    ? DependencyStatus.Error
    : reports.every((r) => r.status === DependencyStatus.Unconfigured)
      ? DependencyStatus.Unconfigured
      : DependencyStatus.Ok;
  return {
    status,
    latency_ms: latencies.length ? Math.max(...latencies) : null,
    error: failed.length ? `${failed.length} of ${reports.length} ${kind}s: ${causes.join('; ')}` : null,
  };
}
