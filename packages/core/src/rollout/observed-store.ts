/**
 * The composition counts of the service's metrics (service-metrics.ts), read off the events the
 * store writes, so no rule has to remember to report them.
 */
import { type CompositionEvent, EventType } from '../compositions/model.ts';
import type { Operation } from '../operations/model.ts';
import { type MetricsSink, ServiceMetric } from '../service-metrics.ts';
import type { RolloutStore } from './ports.ts';

const counted: Partial<Record<EventType, ServiceMetric>> = {
  [EventType.Accepted]: ServiceMetric.CompositionsAccepted,
  [EventType.Ready]: ServiceMetric.CompositionsReady,
  [EventType.Failed]: ServiceMetric.CompositionsFailed,
};

/** The store, reporting each accepted, ready and failed event once it is written. */
export function observedCompositionStore(store: RolloutStore, metrics: MetricsSink): RolloutStore {
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
