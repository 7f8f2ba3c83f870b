/**
 * The dead-letter replay (`POST /v1/admin/dead-letters/replay`, `svc admin dlq replay`): dead jobs
 * go back to the job queue with the operator's reason recorded on each composition. A step job
 * whose operation failed when its message died takes the operation up again at that step; one whose
 * operation still runs is sent again; one with nothing left to do is discarded; an unreadable one
 * stays for a person to read. A dry run says what would happen and changes nothing; a replay is
 * audited (`dead_letters.replayed`) with what it took and did.
 */
import * as v from 'valibot';
import { authorize } from '../auth/access.ts';
import { recordAudit } from '../auth/audit.ts';
import { type Identity, IdentityKind } from '../auth/identity.ts';
import { AuditAction } from '../auth/model.ts';
import type { AuditStore } from '../auth/ports.ts';
import type { Clock } from '../clock.ts';
import { type Job, parse } from '../jobs/job.ts';
import type { DeadJob, DeadLetterQueue, JobQueue } from '../jobs/ports.ts';
import type { Log } from '../log.ts';
import type { Operation } from '../operations/model.ts';
import { isUnfinished } from '../operations/state.ts';
import { enqueueNextStep } from './dispatch.ts';
import { type CompositionEvent, type CompositionRecord, EventActorKind } from './model.ts';
import type { CompositionStore } from './ports.ts';
import { notResumable, replayedEvent, resumeOperation } from './resume.ts';

export const ReplayRequest = v.strictObject({
  /** Say what would happen; send, write and remove nothing. */
  dry_run: v.optional(v.boolean(), false),
  /** Dead jobs to take from the queue, 1–100. */
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 10),
  /** Recorded on each composition's `replayed` event. */
  reason: v.optional(
    v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(300)),
    'replayed from the dead-letter queue',
  ),
});
type ReplayRequest = v.InferOutput<typeof ReplayRequest>;

const ReplayAction = {
  /** The operation had failed with its message: it runs again from the step that failed. */
  Resume: 'resume',
  /** The job is sent again as it is: an operation still running, a forge job. */
  Requeue: 'requeue',
  /** Nothing is left to replay (the operation finished, or a later one took over): removed. */
  Discard: 'discard',
  /** Left in the dead-letter queue: unreadable, or its replay failed. */
  Keep: 'keep',
} as const;
type ReplayAction = (typeof ReplayAction)[keyof typeof ReplayAction];

const ReplayedJob = v.object({
  message_id: v.string(),
  /** The job's kind (`step`, `forge-delivery`…), null when the message is unreadable. */
  kind: v.nullable(v.string()),
  composition_id: v.nullable(v.string()),
  operation_id: v.nullable(v.string()),
  step: v.nullable(v.string()),
  action: v.enum(ReplayAction),
  detail: v.string(),
});
type ReplayedJob = v.InferOutput<typeof ReplayedJob>;

export const ReplayReport = v.object({
  dry_run: v.boolean(),
  reason: v.string(),
  /** Every job taken from the queue, in the order received. */
  jobs: v.array(ReplayedJob),
});
export type ReplayReport = v.InferOutput<typeof ReplayReport>;

export interface ReplayDeps {
  compositions: CompositionStore;
  jobs: JobQueue;
  deadLetters: DeadLetterQueue;
  audit: AuditStore;
  clock: Clock;
  log: Log;
}

/** What to do with one dead job, and what to do before it leaves the queue; null: it stays there. */
interface Plan {
  entry: ReplayedJob;
  run: (() => Promise<void>) | null;
}

const nothing = async () => {};

export async function replayDeadJobs(
  deps: ReplayDeps,
  caller: Identity,
  request: ReplayRequest,
): Promise<ReplayReport> {
  authorize(caller, 'dead_letters:replay', { project: null });
  const report: ReplayReport = { dry_run: request.dry_run, reason: request.reason, jobs: [] };
  for (const dead of await receiveUpTo(deps.deadLetters, request.limit)) {
    const plan = await planReplay(deps, caller, dead, request.reason);
    if (request.dry_run || !plan.run) {
      await deps.deadLetters.release(dead);
    } else {
      try {
        await plan.run();
        await deps.deadLetters.remove(dead);
      } catch (error) {
        await deps.deadLetters.release(dead);
        plan.entry.detail = `not replayed, kept: ${error instanceof Error ? error.message : String(error)}`;
        plan.entry.action = ReplayAction.Keep;
      }
    }
    report.jobs.push(plan.entry);
  }
  if (!request.dry_run && report.jobs.length > 0) {
    await recordAudit(deps, caller, {
      action: AuditAction.DeadLettersReplayed,
      project: null,
      target: 'dead-letter-queue',
      data: {
        reason: request.reason,
        jobs: report.jobs.map(({ message_id, kind, composition_id, action }) => ({
          message_id,
          kind,
          composition_id,
          action,
        })),
      },
    });
  }
  return report;
}

/** Who replayed, as a composition's events name them: a machine token is not a person. */
function replayActor(caller: Identity): CompositionEvent['actor'] {
  const kind = caller.kind === IdentityKind.Machine ? EventActorKind.Machine : EventActorKind.User;
  return { kind, subject: caller.subject };
}

/** The queue answers at most 10 at a time: asks until `limit`, or until a (long-polled) answer is empty. */
async function receiveUpTo(queue: DeadLetterQueue, limit: number): Promise<DeadJob[]> {
  const received: DeadJob[] = [];
  while (received.length < limit) {
    const batch = await queue.receive(Math.min(10, limit - received.length));
    if (batch.length === 0) break;
    received.push(...batch);
  }
  return received;
}

async function planReplay(deps: ReplayDeps, caller: Identity, dead: DeadJob, reason: string): Promise<Plan> {
  let job: Job;
  try {
    job = parse(dead.body);
  } catch {
    return {
      entry: entryOf(
        dead,
        null,
        ReplayAction.Keep,
        'unreadable: not a job this service sends; read it and delete it by hand',
      ),
      run: null,
    };
  }
  if (job.kind !== 'step') {
    return {
      entry: entryOf(dead, job, ReplayAction.Requeue, `${job.kind} job sent again`),
      run: () => deps.jobs.send(job),
    };
  }
  return planStep(deps, caller, dead, job, reason);
}

async function planStep(
  deps: ReplayDeps,
  caller: Identity,
  dead: DeadJob,
  job: Extract<Job, { kind: 'step' }>,
  reason: string,
): Promise<Plan> {
  const [composition, operation] = await Promise.all([
    deps.compositions.get(job.composition_id),
    deps.compositions.getOperation(job.composition_id, job.operation_id),
  ]);
  if (!composition || !operation) {
    return {
      entry: entryOf(dead, job, ReplayAction.Discard, 'its composition or operation no longer exists'),
      run: nothing,
    };
  }
  authorize(caller, 'composition:write', {
    project: composition.project,
    object: `composition "${composition.id}"`,
  });
  const replay = {
    actor: replayActor(caller),
    reason,
    message_id: dead.message_id,
  };
  return replayPlan(deps, dead, job, { composition, operation, replay, now: deps.clock.now() });
}

interface StepReplay {
  composition: CompositionRecord;
  operation: Operation;
  replay: Parameters<typeof resumeOperation>[2];
  now: Date;
}

/** An unfinished operation gets its step again; a finished one that may be resumed runs again from it. */
function replayPlan(
  deps: ReplayDeps,
  dead: DeadJob,
  job: Extract<Job, { kind: 'step' }>,
  { composition, operation, replay, now }: StepReplay,
): Plan {
  if (isUnfinished(operation)) {
    return {
      entry: entryOf(
        dead,
        job,
        ReplayAction.Requeue,
        `operation ${operation.id} is still ${operation.status}: its step is sent again`,
      ),
      run: async () => {
        await deps.compositions.appendEvents([replayedEvent(composition, operation, replay, null, now)]);
        await deps.jobs.send(job);
      },
    };
  }
  const refusal = notResumable(composition, operation, now);
  if (refusal) {
    return { entry: entryOf(dead, job, ReplayAction.Discard, `nothing to replay: ${refusal}`), run: nothing };
  }
  return {
    entry: entryOf(
      dead,
      job,
      ReplayAction.Resume,
      `${operation.kind} ${operation.id} runs again from ${job.step}`,
    ),
    run: async () => {
      const write = resumeOperation(composition, operation, replay, now);
      if (!(await deps.compositions.commit(write))) throw new Error('the composition changed meanwhile');
      await enqueueNextStep(deps, write.operation.record);
    },
  };
}

function entryOf(dead: DeadJob, job: Job | null, action: ReplayAction, detail: string): ReplayedJob {
  const step = job?.kind === 'step' ? job : null;
  return {
    message_id: dead.message_id,
    kind: job?.kind ?? null,
    composition_id: step?.composition_id ?? null,
    operation_id: step?.operation_id ?? null,
    step: step?.step ?? null,
    action,
    detail,
  };
}
