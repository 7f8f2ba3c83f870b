import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { Compositions, Jobs } from '@svc/core';

export function sqsJobQueue(sqs: SQSClient, queueUrl: string): Compositions.JobQueue {
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
