/**
 * The forge's jobs: a stored delivery to process, one pull request or one repository to converge.
 * Each converges to what the forge and the stores say now, so a duplicate or late message is
 * harmless. A rate limit re-enqueues the job after the forge's reset instead of stalling it.
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
      if (processed) await defer(deps, job, processed.deferSeconds);
    } else if (job.kind === 'forge-preview') {
      await Forge.convergePullRequest(deps, job);
    } else {
      await Forge.convergeRepository(deps, job);
    }
  } catch (error) {
    if (!(error instanceof Forge.ForgeRateLimitedError)) throw error;
    await defer(deps, job, error.retryAfterSeconds);
  } finally {
    await Forge.recordBudgets(deps).catch(() => {});
  }
}

async function defer(deps: WorkerDeps, job: Jobs.ForgeJob, seconds: number): Promise<void> {
  deps.log({ level: 'info', msg: 'forge job deferred by a rate limit', kind: job.kind, seconds });
  await deps.jobs.send(job, { delaySeconds: Math.max(1, Math.min(Math.ceil(seconds), maxDelaySeconds)) });
}
