export { defaultWorkerSettings, type WorkerDeps, type WorkerSettings } from './deps.ts';
export { lambdaHandler, type ScheduleEvent } from './lambda-handler.ts';
export { type MessageHandler, type Poller, type PollerOptions, startPoller } from './poller.ts';
export { httpProbe, type Probe } from './prober.ts';
export { handleJob } from './runner.ts';
export { type ScheduleHandlers, type Scheduler, startScheduler } from './scheduler.ts';
export { sweeps } from './sweeps.ts';
