/**
 * The service's own metrics (docs/runbooks.md, docs/deploy.md): what a composition's life and the
 * webhook look like from outside. A sink turns them into CloudWatch metrics on Lambda (embedded
 * metric format, packages/aws); the composition counts are read off the events the store writes,
 * so no rule has to remember to report them.
 */

import { type CompositionEvent, EventType } from './compositions/model.ts';
import type { CompositionStore } from './compositions/ports.ts';
import type { Operation } from './operations/model.ts';
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

const counted: Partial<Record<EventType, ServiceMetric>> = {
  [EventType.Accepted]: ServiceMetric.CompositionsAccepted,
  [EventType.Ready]: ServiceMetric.CompositionsReady,
  [EventType.Failed]: ServiceMetric.CompositionsFailed,
};

/** The store, reporting each accepted, ready and failed event once it is written. */
export function observedCompositionStore(store: CompositionStore, metrics: MetricsSink): CompositionStore {
  const report = (events: readonly CompositionEvent[] | undefined, operation?: Operation) => {
    for (const event of events ?? []) {
      const metric = counted[event.type];
      if (metric) metrics.count(metric);
      if (event.type === EventType.Ready && operation?.id === event.operation_id) {
        metrics.milliseconds(
          ServiceMetric.RolloutDuration,
          Date.parse(event.at) - Date.parse(operation.created_at),
        );
      }
    }
  };
  return {
    ...store,
    async create(write) {
      await store.create(write);
      report(write.events, write.operation);
    },
    async replace(write) {
      const written = await store.replace(write);
      if (written) report(write.events, write.operation);
      return written;
    },
    async commit(write) {
      const written = await store.commit(write);
      if (written) report(write.events, write.operation?.record);
      return written;
    },
    async appendEvents(events) {
      await store.appendEvents(events);
      report(events);
    },
  };
}
