export { type ForgeJob, Job, parse, type StepJob } from './job.ts';
export type { DeadLetterQueue } from './ports.ts';
