import * as v from 'valibot';
import { AuthMode } from './auth/identity.ts';

/** A backing service the API depends on, probed by `GET /healthz`. */
export interface DependencyCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  check(signal: AbortSignal): Promise<void>;
}

export const DependencyStatus = { Ok: 'ok', Error: 'error', Unconfigured: 'unconfigured' } as const;
export type DependencyStatus = (typeof DependencyStatus)[keyof typeof DependencyStatus];

const DependencyReport = v.object({
  status: v.enum(DependencyStatus),
  latency_ms: v.nullable(v.number()),
  /** A short outward cause (`connection failed (ECONNREFUSED)`); what the dependency said is logged. */
  error: v.nullable(v.string()),
});
export type DependencyReport = v.InferOutput<typeof DependencyReport>;

/** `GET /healthz`: 200 when every dependency answers, 503 `degraded` otherwise. */
export const HealthReport = v.object({
  status: v.picklist(['ok', 'degraded']),
  dependencies: v.record(v.string(), DependencyReport),
  auth: v.object({ mode: v.enum(AuthMode), warning: v.nullable(v.string()) }),
});
export type HealthReport = v.InferOutput<typeof HealthReport>;
