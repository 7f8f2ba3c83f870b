/**
 * The worker as its Lambda function runs on AWS, locally: the job queue's poller in place of the
 * event source, timers in place of EventBridge Scheduler.
 */
import { Compositions, Resources } from '@svc/core';
import type { WorkerServices } from '@svc/wiring/worker';
import {
  handleJob,
  type Poller,
  type Scheduler,
  startPoller,
  startScheduler,
  sweeps,
  type WorkerDeps,
} from '@svc/worker';
import type { Cleanups, StackOptions } from './options.ts';

/** What a test drives the worker with. */
export interface WorkerControl {
  readonly scheduler: Scheduler;
  /** What the worker runs with, for driving its Lambda handler in tests. */
  readonly workerDeps: WorkerDeps;
  /** Runs one job message the way the poller does; tests use it to deliver a message twice. */
  handle(body: string, receiveCount?: number): Promise<void>;
}

/** The worker on the job queue and the schedules on timers, over the worker's services. */
export async function startWorker(
  options: StackOptions,
  services: WorkerServices,
  cleanups: Cleanups,
): Promise<WorkerControl> {
  const workerDeps: WorkerDeps = options.wrapWorkerStore
    ? { ...services, compositions: options.wrapWorkerStore(services.compositions) }
    : services;
  const handle = (body: string, receiveCount = 1) => handleJob(workerDeps, body, receiveCount);
  if (options.worker !== false) {
    const poller: Poller = startPoller({
      sqs: services.aws.clients.sqs,
      queueUrl: services.aws.names.jobQueueUrl,
      handle,
      log: services.log,
      ...(options.retryBaseSeconds === undefined ? {} : { retryBaseSeconds: options.retryBaseSeconds }),
    });
    cleanups.push(() => poller.stop());
  }
  const redispatch = followDueOperations(services, () => scheduler);
  const scheduler = startScheduler(
    localSchedules,
    { ...sweeps(services), [Resources.ScheduleName.RedispatchSweep]: redispatch.sweep },
    { log: services.log },
  );
  cleanups.push(() => scheduler.stop());
  // Cleanups run last first: no follow-up sweep starts once the stack is stopping.
  cleanups.push(async () => redispatch.stop());
  await scheduler.run(Resources.ScheduleName.RedispatchSweep);
  return { workerDeps, handle, scheduler };
}

/**
 * The sleep sweep every 5 s locally (the shortest `sleep.after`), where EventBridge's finest is a
 * minute: a local preview says it sleeps or woke seconds after its forks do.
 */
const localSchedules = Resources.schedules.map((schedule) =>
  schedule.name === Resources.ScheduleName.SleepSweep ? { ...schedule, periodSeconds: 5 } : schedule,
);

const redispatchPeriodMs =
  (Resources.schedules.find((s) => s.name === Resources.ScheduleName.RedispatchSweep)?.periodSeconds ?? 60) *
  1000;

/**
 * The redispatch sweep, run again locally as soon as the next unfinished operation falls due rather
 * than at its next minute (EventBridge's finest period, which the cloud keeps): a chain cut off by
 * a crash, this run's or the previous one's, is taken over a second after its lease lapses.
 */
function followDueOperations(
  deps: Pick<WorkerDeps, 'compositions' | 'jobs' | 'clock' | 'log'>,
  scheduler: () => Scheduler,
): { sweep: () => Promise<number>; stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  return {
    async sweep() {
      const sent = await Compositions.redispatchOverdue(deps);
      const now = deps.clock.now().getTime();
      const next = await Compositions.nextDueBefore(deps, new Date(now + redispatchPeriodMs));
      const at = next ? Math.max(next.getTime(), now) + 1000 : null;
      if (at !== null && at < timerAt) {
        clearTimeout(timer);
        timerAt = at;
        timer = setTimeout(() => {
          timerAt = Number.POSITIVE_INFINITY;
          void scheduler().run(Resources.ScheduleName.RedispatchSweep);
        }, at - now);
        timer.unref();
      }
      return sent;
    },
    stop: () => clearTimeout(timer),
  };
}
