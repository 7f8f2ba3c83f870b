export { defaultWorkerSettings, type WorkerDeps, type WorkerSettings } from './deps.ts';
export { lambdaHandler } from './lambda-handler.ts';
export { countingMetrics, type Metrics as WorkerMetrics } from './metrics.ts';
export { type Poller, startPoller } from './poller.ts';
export { httpProbe } from './prober.ts';
export { handleJob } from './runner.ts';
export { type Scheduler, startScheduler } from './scheduler.ts';
export { sweeps } from './sweeps.ts';
