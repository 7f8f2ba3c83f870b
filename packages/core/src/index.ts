export * from './auth/identity.ts';
export * from './errors.ts';
export * from './health.ts';
export * as Jobs from './jobs/job.ts';
export * as Resources from './resources.ts';
