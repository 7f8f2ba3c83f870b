/**
 * Counts of what the worker drops or loses on purpose, for operators to alert on: each is also
 * logged with its ids. On Lambda a count is a CloudWatch embedded-metric log line; locally (and in
 * tests) counts are kept in memory.
 */

export const WorkerMetric = {
  /** A job message named an operation or composition that does not exist. */
  UnknownOperationMessages: 'unknown_operation_messages',
  /** A chain's conditional write failed: another writer (a duplicate chain, a destroy) got there first. */
  LostChainWrites: 'lost_chain_writes',
} as const;
export type WorkerMetric = (typeof WorkerMetric)[keyof typeof WorkerMetric];

export interface Metrics {
  count(metric: WorkerMetric): void;
}

/** Counts kept in memory: the local stack's, read by tests. */
export function countingMetrics(): Metrics & { counts(): Readonly<Record<string, number>> } {
  const counts: Record<string, number> = {};
  return {
    count(metric) {
      counts[metric] = (counts[metric] ?? 0) + 1;
    },
    counts: () => ({ ...counts }),
  };
}

const namespace = 'PreviewCompositionService';

/** CloudWatch embedded metric format: one JSON log line per count, turned into a metric by CloudWatch. */
export function embeddedMetrics(write: (line: string) => void = console.log): Metrics {
  return {
    count(metric) {
      write(
        JSON.stringify({
          _aws: {
            Timestamp: Date.now(),
            CloudWatchMetrics: [
              { Namespace: namespace, Dimensions: [[]], Metrics: [{ Name: metric, Unit: 'Count' }] },
            ],
          },
          [metric]: 1,
        }),
      );
    },
  };
}
