/** Only ports and the job's schema (job.ts): a job is a message, not a record. */
export { type ForgeJob, Job, parse, type StepJob } from './job.ts';
export type { DeadLetterQueue, JobQueue } from './ports.ts';
