import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type Log, type MetricsSink, Resources, ServiceMetric } from '@svc/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { WorkerDeps } from './deps.ts';
import { handleJob } from './runner.ts';
import type { ScheduleHandlers } from './scheduler.ts';

/** What EventBridge Scheduler sends (infra/settings.ts `scheduleArgs`). */
export interface ScheduleEvent {
  schedule: Resources.ScheduleName;
  /** When the schedule was due (Scheduler's `<aws.scheduler.scheduled-time>`): the sweep's lag. */
  scheduled_at?: string;
}

/** The ids a job's body names, put on every log line while it runs (operators filter by them). */
function jobIds(body: string): Record<string, unknown> {
  try {
    const job = JSON.parse(body) as Record<string, unknown>;
    return Object.fromEntries(
      ['composition_id', 'operation_id', 'delivery_id']
        .filter((key) => typeof job[key] === 'string')
        .map((key) => [key, job[key]]),
    );
  } catch {
    return {};
  }
}

const retryBaseSeconds = 2;

/**
 * The worker on Lambda: SQS batches with partial batch responses (only failed messages come back),
 * and schedule events naming a sweep. A failed message is made visible again after a short backoff
 * instead of the queue's long visibility timeout; the redrive policy still counts its receives.
 */
export function lambdaHandler(
  deps: WorkerDeps,
  sqs: SQSClient,
  queueUrl: string,
  sweeps: ScheduleHandlers,
  metrics?: MetricsSink,
) {
  return async (event: SQSEvent | ScheduleEvent): Promise<SQSBatchResponse | { swept: unknown }> => {
    if ('schedule' in event) {
      const sweep = sweeps[event.schedule];
      if (!sweep) throw new Error(`unknown schedule "${event.schedule}"`);
      const schedule = { schedule: event.schedule };
      const due = Date.parse(event.scheduled_at ?? '');
      if (Number.isFinite(due))
        metrics?.milliseconds(ServiceMetric.SweepLag, deps.clock.now().getTime() - due, schedule);
      const swept = await sweep();
      // Only a run that finished beats: a sweep that throws every time goes as silent as a stopped schedule.
      metrics?.count(ServiceMetric.SweepHeartbeat, schedule);
      return { swept };
    }
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
        const context = { message_id: record.messageId, ...jobIds(record.body) };
        const log: Log = (entry) => deps.log({ ...context, ...entry });
        try {
          await handleJob({ ...deps, log }, record.body, receiveCount);
        } catch (error) {
          log({ level: 'warn', msg: 'job failed', error: String(error) });
          failures.push({ itemIdentifier: record.messageId });
          const delay = Math.min(
            retryBaseSeconds * 2 ** (receiveCount - 1),
            Resources.jobQueue.visibilityTimeoutSeconds,
          );
          await sqs
            .send(
              new ChangeMessageVisibilityCommand({
                QueueUrl: queueUrl,
                ReceiptHandle: record.receiptHandle,
                VisibilityTimeout: delay,
              }),
            )
            .catch(() => {});
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}
