import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { JobQueue, Jobs } from '@svc/core';

export function sqsJobQueue(sqs: SQSClient, queueUrl: string): JobQueue {
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
