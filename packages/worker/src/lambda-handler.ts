import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Resources } from '@svc/core';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { WorkerDeps } from './deps.ts';
import { handleJob } from './runner.ts';
import type { ScheduleHandlers } from './scheduler.ts';

/** What EventBridge Scheduler sends (infra/settings.ts `scheduleArgs`). */
export interface ScheduleEvent {
  schedule: Resources.ScheduleName;
}

const retryBaseSeconds = 2;

/**
 * The worker on Lambda: SQS batches with partial batch responses (only failed messages come back),
 * and schedule events naming a sweep. A failed message is made visible again after a short backoff
 * instead of the queue's long visibility timeout; the redrive policy still counts its receives.
 */
export function lambdaHandler(deps: WorkerDeps, sqs: SQSClient, queueUrl: string, sweeps: ScheduleHandlers) {
  return async (event: SQSEvent | ScheduleEvent): Promise<SQSBatchResponse | { swept: unknown }> => {
    if ('schedule' in event) {
      const sweep = sweeps[event.schedule];
      if (!sweep) throw new Error(`unknown schedule "${event.schedule}"`);
      return { swept: await sweep() };
    }
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const receiveCount = Number(record.attributes.ApproximateReceiveCount ?? '1');
        try {
          await handleJob(deps, record.body, receiveCount);
        } catch (error) {
          deps.log({ level: 'warn', msg: 'job failed', message_id: record.messageId, error: String(error) });
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
