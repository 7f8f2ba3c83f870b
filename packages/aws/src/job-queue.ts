import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Jobs } from '@svc/core';

export function sqsJobQueue(sqs: SQSClient, queueUrl: string): Jobs.JobQueue {
  return {
    async send(job: Jobs.Job, options = {}) {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: JSON.stringify(job),
          ...(options.delaySeconds ? { DelaySeconds: Math.min(900, Math.ceil(options.delaySeconds)) } : {}),
        }),
      );
    },
  };
}

/** How long a received dead job stays hidden from other readers while a replay decides. */
const replayVisibilitySeconds = 60;
/**
 * A long poll: SQS then asks all its servers (a short poll samples some, and may answer nothing
 * while jobs wait), so an empty answer means the queue has none to give, and the replay stops.
 */
const replayWaitSeconds = 2;

/** The job queue's dead-letter queue, for the replay (`POST /v1/admin/dead-letters/replay`). */
export function sqsDeadLetterQueue(sqs: SQSClient, queueUrl: string): Jobs.DeadLetterQueue {
  return {
    async receive(max) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, max),
          VisibilityTimeout: replayVisibilitySeconds,
          WaitTimeSeconds: replayWaitSeconds,
        }),
      );
      return Messages.flatMap(({ MessageId, Body, ReceiptHandle }) =>
        MessageId && ReceiptHandle
          ? [{ message_id: MessageId, body: Body ?? '', receipt: ReceiptHandle }]
          : [],
      );
    },
    async remove(job) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: job.receipt }));
    },
    async release(job) {
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: job.receipt,
          VisibilityTimeout: 0,
        }),
      );
    },
  };
}
