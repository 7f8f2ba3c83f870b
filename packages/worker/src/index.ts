export { type MessageHandler, type Poller, type PollerOptions, startPoller } from './poller.ts';
export { type ScheduleHandlers, type Scheduler, startScheduler } from './scheduler.ts';
