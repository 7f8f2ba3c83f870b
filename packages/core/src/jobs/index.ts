export type { DeadLetterQueue } from './dead-letters.ts';
export { type ForgeJob, Job, parse, type StepJob } from './job.ts';
