export { Job, parse } from './job.ts';
