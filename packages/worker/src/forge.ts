/**
 * The forge's jobs: a stored delivery to process, one pull request or one repository to converge.
 * Each converges to what the forge and the stores say now, so a duplicate or late message is
 * harmless. A rate limit re-enqueues the job after the forge's reset instead of stalling it, and a
 * convergence that kept losing races for its record a moment later.
 */
import { Forge, type Jobs } from '@svc/core';
import type { WorkerDeps } from './deps.ts';

/** SQS refuses a longer per-message delay. */
const maxDelaySeconds = 900;

export async function handleForgeJob(
  deps: WorkerDeps,
  job: Jobs.ForgeJob,
  receiveCount: number,
): Promise<void> {
  if (!deps.forge) {
    deps.log({ level: 'warn', msg: 'forge job dropped: no forge application is configured', kind: job.kind });
    return;
  }
  try {
    if (job.kind === 'forge-delivery') {
      const processed = await Forge.processDelivery(deps, job.delivery_id, receiveCount);
      if (processed) {
        deps.log({
          level: 'info',
          msg: 'forge job deferred',
          kind: job.kind,
          seconds: processed.deferSeconds,
        });
        await defer(deps, job, processed.deferSeconds);
      }
    } else if (job.kind === 'forge-preview') {
      await Forge.convergePullRequest(deps, job);
    } else {
      await Forge.convergeRepository(deps, job);
    }
  } catch (error) {
    const seconds = deferral(error);
    if (seconds === null) throw error;
    deps.log({ level: 'info', msg: 'forge job deferred', kind: job.kind, reason: String(error), seconds });
    await defer(deps, job, seconds);
  } finally {
    await Forge.recordBudgets(deps).catch(() => {});
  }
}

/**
 * How long to put a job off rather than fail it: a rate limit until the forge's reset; a
 * convergence that lost every race for its record (pull requests of one change converging at once)
 * one to three seconds, spread so the racers do not meet again, where a failed job would come
 * back only after the queue's visibility timeout. Null: a failure, for the queue to retry.
 */
export function deferral(error: unknown, random: () => number = Math.random): number | null {
  if (error instanceof Forge.ForgeRateLimitedError) return error.retryAfterSeconds;
  if (error instanceof Forge.ForgeContendedError) return 1 + Math.floor(random() * 3);
  return null;
}

async function defer(deps: WorkerDeps, job: Jobs.ForgeJob, seconds: number): Promise<void> {
  await deps.jobs.send(job, { delaySeconds: Math.max(1, Math.min(Math.ceil(seconds), maxDelaySeconds)) });
}
