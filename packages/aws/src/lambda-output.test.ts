import { ServiceMetric } from '@svc/core';
import { describe, expect, it, vi } from 'vitest';
import { embeddedMetricsSink, lambdaLog, metricsNamespace } from './lambda-output.ts';

describe('Lambda output', () => {
  it('writes one JSON object a line with the service, level and trace id', () => {
    const lines: string[] = [];
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793');
    lambdaLog('worker', (line) => lines.push(line))({
      level: 'warn',
      msg: 'job failed',
      composition_id: 'c-1',
    });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 'warn',
      service: 'worker',
      msg: 'job failed',
      composition_id: 'c-1',
      trace_id: 'Root=1-5759e988-bd862e3fe1be46a994272793',
    });
  });

  it('writes metrics in the embedded metric format, dimensioned by service and stage', () => {
    const lines: string[] = [];
    const sink = embeddedMetricsSink('api', { SVC_STAGE: 'production' }, (line) => lines.push(line));
    sink.milliseconds(ServiceMetric.RolloutDuration, 1234);
    const line = JSON.parse(lines[0] ?? '');
    expect(line._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: metricsNamespace,
        Dimensions: [['service', 'stage']],
        Metrics: [{ Name: 'RolloutDuration', Unit: 'Milliseconds' }],
      },
    ]);
    expect(line).toMatchObject({ service: 'api', stage: 'production', RolloutDuration: 1234 });
  });

  it("adds a metric's own dimensions: a sweep's schedule", () => {
    const lines: string[] = [];
    const sink = embeddedMetricsSink('worker', { SVC_STAGE: 'staging' }, (line) => lines.push(line));
    sink.count(ServiceMetric.SweepHeartbeat, { schedule: 'expiry-sweep' });
    const line = JSON.parse(lines[0] ?? '');
    expect(line._aws.CloudWatchMetrics[0]).toMatchObject({
      Dimensions: [['service', 'stage', 'schedule']],
      Metrics: [{ Name: 'SweepHeartbeat', Unit: 'Count' }],
    });
    expect(line).toMatchObject({
      service: 'worker',
      stage: 'staging',
      schedule: 'expiry-sweep',
      SweepHeartbeat: 1,
    });
  });
});
