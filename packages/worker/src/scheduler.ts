import { type Log, type Resources, silentLog } from '@svc/core';

export type ScheduleHandlers = Record<Resources.ScheduleName, () => Promise<unknown>>;

export interface Scheduler {
  /** Runs one schedule now (tests, start-up redispatch); waits for a run already under way instead of overlapping it. */
  run(name: Resources.ScheduleName): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The local stand-in for EventBridge schedules: one timer per declared schedule. A run never
 * overlaps the previous run of the same schedule.
 */
export function startScheduler(
  schedules: readonly { name: Resources.ScheduleName; periodSeconds: number }[],
  handlers: ScheduleHandlers,
  options: { periodScale?: number; log?: Log } = {},
): Scheduler {
  const log = options.log ?? silentLog;
  const running = new Map<string, Promise<void>>();
  const timers: NodeJS.Timeout[] = [];

  function run(name: Resources.ScheduleName): Promise<void> {
    const current = running.get(name);
    if (current) return current;
    const task = handlers[name]()
      .then(() => undefined)
      .catch((error: unknown) =>
        log({ level: 'warn', msg: 'schedule failed', schedule: name, error: String(error) }),
      )
      .finally(() => running.delete(name));
    running.set(name, task);
    return task;
  }

  for (const schedule of schedules) {
    const period = schedule.periodSeconds * 1000 * (options.periodScale ?? 1);
    const timer = setInterval(() => void run(schedule.name), period);
    timer.unref();
    timers.push(timer);
  }

  return {
    run,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled(running.values());
    },
  };
}
