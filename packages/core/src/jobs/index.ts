export { type ForgeJob, Job, parse, type StepJob } from './job.ts';
