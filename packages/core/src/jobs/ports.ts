import type { Job } from './job.ts';

/** Where a step or a forge job is sent for the worker. */
export interface JobQueue {
  send(job: Job, options?: { delaySeconds?: number }): Promise<void>;
}

/** The job queue's dead-letter queue, as a replay reads it (packages/aws `sqsDeadLetterQueue`). */
export interface DeadJob {
  message_id: string;
  body: string;
  /** What removes or releases this receipt of it. */
  receipt: string;
}

export interface DeadLetterQueue {
  /** Up to `max` dead jobs, hidden from other readers while the replay decides. */
  receive(max: number): Promise<DeadJob[]>;
  /** Gone for good: replayed, or nothing left to replay. */
  remove(job: DeadJob): Promise<void>;
  /** Visible again at once: a dry run, or a job the replay keeps. */
  release(job: DeadJob): Promise<void>;
}
