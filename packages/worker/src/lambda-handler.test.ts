import type { SQSClient } from '@aws-sdk/client-sqs';
import { embeddedMetricsSink } from '@svc/aws';
import { describe, expect, it } from 'vitest';
import { lambdaHandler } from './lambda-handler.ts';
import type { ScheduleHandlers } from './scheduler.ts';
import { memoryWorker } from './testing/memory-worker.ts';

/** The worker on Lambda with the deployed metrics sink: what it writes, one EMF object a line. */
function scheduledWorker(sweeps: Partial<ScheduleHandlers>) {
  const lines: Record<string, unknown>[] = [];
  const metrics = embeddedMetricsSink('worker', { SVC_STAGE: 'production' }, (line) =>
    lines.push(JSON.parse(line)),
  );
  // Schedule events never reach SQS: a client that is used fails the test.
  const handler = lambdaHandler(
    memoryWorker().deps,
    {} as SQSClient,
    'unused',
    sweeps as ScheduleHandlers,
    metrics,
  );
  return { handler, lines };
}

const emf = (line: Record<string, unknown>) =>
  (line._aws as { CloudWatchMetrics: { Dimensions: string[][]; Metrics: { Name: string }[] }[] })
    .CloudWatchMetrics[0];

describe('the worker on Lambda, run by a schedule', () => {
  it("reports the run's lag, then its heartbeat once the sweep returns, by stage and schedule", async () => {
    const { handler, lines } = scheduledWorker({ 'expiry-sweep': async () => 2 });
    const scheduledAt = new Date(Date.now() - 1_500).toISOString();
    expect(await handler({ schedule: 'expiry-sweep', scheduled_at: scheduledAt })).toEqual({ swept: 2 });
    expect(lines.map((line) => emf(line)?.Metrics[0]?.Name)).toEqual(['SweepLag', 'SweepHeartbeat']);
    for (const line of lines) {
      expect(emf(line)?.Dimensions).toEqual([['service', 'stage', 'schedule']]);
      expect(line).toMatchObject({ service: 'worker', stage: 'production', schedule: 'expiry-sweep' });
    }
    expect(lines[0]?.SweepLag).toBeGreaterThanOrEqual(1_500);
    expect(lines[1]?.SweepHeartbeat).toBe(1);
  });

  it('gives no heartbeat for a sweep that fails: its alarm sees the silence', async () => {
    const { handler, lines } = scheduledWorker({
      'redispatch-sweep': async () => {
        throw new Error('table unreachable');
      },
    });
    await expect(handler({ schedule: 'redispatch-sweep' })).rejects.toThrow(/table unreachable/);
    expect(lines.map((line) => emf(line)?.Metrics[0]?.Name)).not.toContain('SweepHeartbeat');
  });
});
