import { queueArgs } from './settings.ts';

export function queues() {
  const args = queueArgs();
  const deadLetter = new sst.aws.Queue('JobsDeadLetter', {
    transform: { queue: { messageRetentionSeconds: args.deadLetter.messageRetentionSeconds } },
  });
  const jobs = new sst.aws.Queue('Jobs', {
    visibilityTimeout: args.jobs.visibilityTimeout,
    dlq: { queue: deadLetter.arn, retry: args.jobs.retry },
  });
  return { jobs, deadLetter };
}
