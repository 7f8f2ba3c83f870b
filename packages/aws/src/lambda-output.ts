/**
 * Log lines and metrics of a function on Lambda. Both are JSON written straight to stdout, one
 * object a line: with the functions' JSON log format (infra/functions.ts) Lambda wraps what
 * `console` prints in an object of its own, which would hide our fields from Logs Insights and
 * keep CloudWatch from reading the embedded metric format.
 */
import type { Log, MetricsSink } from '@svc/core';

/** CloudWatch namespace of the service's metrics; alarms name it (infra/settings.ts). */
export const metricsNamespace = 'PreviewCompositionService';

export const stdoutLine = (line: string) => {
  process.stdout.write(`${line}\n`);
};

/**
 * A log function for `service` (api, worker, webhook): each line has its time, level, the service
 * and the X-Ray trace id of the invocation, which ties it to the trace across API, queue and worker.
 */
export function lambdaLog(service: string, write: (line: string) => void = stdoutLine): Log {
  return ({ level, ...fields }) =>
    write(
      JSON.stringify({
        timestamp: new Date().toISOString(),
        level,
        service,
        trace_id: process.env._X_AMZN_TRACE_ID ?? null,
        ...fields,
      }),
    );
}

/**
 * Metrics in CloudWatch's embedded metric format, one line each, dimensioned by `service` and
 * `stage` (the function's SVC_STAGE: stages sharing an account never share a metric), and by
 * their own dimensions (a sweep's `schedule`). The alarms (infra/alarms.ts) name the same set.
 */
export function embeddedMetricsSink(
  service: string,
  env: Record<string, string | undefined>,
  write: (line: string) => void = stdoutLine,
): MetricsSink {
  const stage = env.SVC_STAGE ?? 'local';
  const emit = (metric: string, unit: 'Count' | 'Milliseconds', value: number, own = {}) => {
    const dimensions: Record<string, string> = { service, stage, ...own };
    write(
      JSON.stringify({
        _aws: {
          Timestamp: Date.now(),
          CloudWatchMetrics: [
            {
              Namespace: metricsNamespace,
              Dimensions: [Object.keys(dimensions)],
              Metrics: [{ Name: metric, Unit: unit }],
            },
          ],
        },
        ...dimensions,
        [metric]: value,
      }),
    );
  };
  return {
    count: (metric, dimensions) => emit(metric, 'Count', 1, dimensions),
    milliseconds: (metric, value, dimensions) => emit(metric, 'Milliseconds', value, dimensions),
  };
}
