import { embeddedMetricsSink, metricsNamespace } from '@svc/aws';
import { Resources, ServiceMetric } from '@svc/core';
import { describe, expect, it } from 'vitest';
import staging from '../stacks/staging.ts';
import { synthesize } from './synth.ts';

/** The stage's alarms as the deploy creates them: name → arguments. */
function alarmsOf(stage: string) {
  const alarms = synthesize(stage, staging).resources.filter(
    (r) => r.type === 'aws:cloudwatch/metricAlarm:MetricAlarm',
  );
  return new Map(alarms.map((a) => [a.logical, a.props]));
}

/** What CloudWatch makes of one EMF line: the metric's name and its full dimension set. */
function emitted(
  service: string,
  stage: string,
  metric: ServiceMetric,
  own?: { schedule: Resources.ScheduleName },
) {
  const lines: Record<string, unknown>[] = [];
  embeddedMetricsSink(service, { SVC_STAGE: stage }, (line) => lines.push(JSON.parse(line))).count(
    metric,
    own,
  );
  const line = lines[0] ?? {};
  const [directive] = (line._aws as { CloudWatchMetrics: { Namespace: string; Dimensions: string[][] }[] })
    .CloudWatchMetrics;
  return {
    namespace: directive?.Namespace,
    metricName: metric,
    dimensions: Object.fromEntries((directive?.Dimensions[0] ?? []).map((key) => [key, line[key]])),
  };
}

describe("the stage's alarms", () => {
  it("watch each schedule's heartbeat, expiry first, exactly as the worker emits it for the stage", () => {
    const alarms = alarmsOf('production');
    const silent = [...alarms.keys()].filter((name) => name.endsWith('Silent'));
    expect(silent[0]).toBe('ExpirySweepSilent');
    expect(silent).toHaveLength(Resources.schedules.length);
    for (const schedule of Resources.schedules) {
      const name = `${schedule.name.replace(/(^|-)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Silent`;
      expect(alarms.get(name), name).toMatchObject({
        ...emitted('worker', 'production', ServiceMetric.SweepHeartbeat, { schedule: schedule.name }),
        treatMissingData: 'breaching',
      });
    }
  });

  it('give a schedule three of its periods, ten minutes at least, before its silence alarms', () => {
    const alarms = alarmsOf('staging');
    const window = (name: string) => {
      const alarm = alarms.get(name) as { period: number; evaluationPeriods: number };
      return [alarm.period, alarm.evaluationPeriods];
    };
    expect(window('ExpirySweepSilent')).toEqual([300, 2]); // every minute
    expect(window('ForgeReconcileSilent')).toEqual([300, 3]); // every five minutes
    expect(window('IdempotencySweepSilent')).toEqual([3600, 3]); // every hour
  });

  it("watch the webhook's rejections as the webhook emits them, the stage's own", () => {
    expect(alarmsOf('staging').get('WebhookSignaturesRejected')).toMatchObject(
      emitted('webhook', 'staging', ServiceMetric.WebhookDeliveriesRejected),
    );
    expect(emitted('webhook', 'staging', ServiceMetric.WebhookDeliveriesRejected).namespace).toBe(
      metricsNamespace,
    );
  });

  it("are named with the stage, so staging's and production's never share one", () => {
    const names = (stage: string) => [...alarmsOf(stage).values()].map((a) => String(a.name));
    expect(names('production').every((name) => name.startsWith('preview-composition/production/'))).toBe(
      true,
    );
    expect(names('staging').filter((name) => names('production').includes(name))).toEqual([]);
    expect(new Set(names('staging')).size).toBe(names('staging').length);
  });

  it("leave /healthz out of the API's 5xx rate: the API's own metrics less its /healthz route's", () => {
    const queries = alarmsOf('staging').get('Api5xxRate')?.metricQueries as {
      id: string;
      expression?: string;
      metric?: { metricName: string; dimensions: Record<string, string> };
    }[];
    const metric = (id: string) => queries.find((q) => q.id === id)?.metric;
    expect(metric('errors')).toMatchObject({ metricName: '5xx', dimensions: { Stage: '$default' } });
    expect(metric('healthErrors')).toMatchObject({
      metricName: '5xx',
      dimensions: { Stage: '$default', Method: 'GET', Resource: '/healthz' },
    });
    expect(metric('healthRequests')?.metricName).toBe('Count');
    const expressions = queries.filter((q) => q.expression).map((q) => q.expression);
    expect(expressions).toEqual([
      'requests - FILL(healthRequests, 0)',
      'IF(served > 0, 100 * (errors - FILL(healthErrors, 0)) / served, 0)',
    ]);
  });
});
