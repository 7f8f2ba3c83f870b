/**
 * The service's own metrics (docs/runbooks.md, docs/deploy.md): what a composition's life and the
 * webhook look like from outside. A sink turns them into CloudWatch metrics on Lambda (embedded
 * metric format, packages/aws); the composition counts are read off the events the store writes
 * (rollout/observed-store.ts).
 */

import type { ScheduleName } from './resources.ts';

export const ServiceMetric = {
  CompositionsAccepted: 'CompositionsAccepted',
  CompositionsReady: 'CompositionsReady',
  CompositionsFailed: 'CompositionsFailed',
  /** From the operation's creation to its `ready` event, milliseconds. */
  RolloutDuration: 'RolloutDuration',
  /** How late a scheduled sweep started after its scheduled time, milliseconds; by schedule. */
  SweepLag: 'SweepLag',
  /** A scheduled sweep ran to its end, one per run, by schedule: its silence is what the alarms see. */
  SweepHeartbeat: 'SweepHeartbeat',
  WebhookDeliveriesAccepted: 'WebhookDeliveriesAccepted',
  /** Refused for a missing or wrong signature (401). */
  WebhookDeliveriesRejected: 'WebhookDeliveriesRejected',
} as const;
export type ServiceMetric = (typeof ServiceMetric)[keyof typeof ServiceMetric];

/** A metric's own dimensions, besides the service and the stage every one carries. */
interface MetricDimensions {
  schedule?: ScheduleName;
}

export interface MetricsSink {
  count(metric: ServiceMetric, dimensions?: MetricDimensions): void;
  milliseconds(metric: ServiceMetric, value: number, dimensions?: MetricDimensions): void;
}
