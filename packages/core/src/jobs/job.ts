import * as v from 'valibot';

/**
 * What travels on the job queue. A step message names one step of one operation; the worker
 * loads the operation and decides, so a duplicate or stale message is harmless.
 */
const StepJob = v.object({
  kind: v.literal('step'),
  operation_id: v.string(),
  composition_id: v.string(),
  step: v.string(),
});

/** Process one stored forge delivery (`POST /webhooks/forge` stored it first). */
const ForgeDeliveryJob = v.object({ kind: v.literal('forge-delivery'), delivery_id: v.string() });

/** Converge one pull request's preview: after a build, a stop or restart, or while its composition moves. */
const ForgePreviewJob = v.object({
  kind: v.literal('forge-preview'),
  project: v.string(),
  repository: v.string(),
  number: v.number(),
});

/** Converge every pull request of one repository (a policy changed). */
const ForgeRepositoryJob = v.object({
  kind: v.literal('forge-repository'),
  project: v.string(),
  repository: v.string(),
});

/** Hold a composition's forks up as its wake command asked (`Compositions.wakeForks`). */
const WakeJob = v.object({ kind: v.literal('wake'), composition_id: v.string() });

export const Job = v.variant('kind', [
  StepJob,
  ForgeDeliveryJob,
  ForgePreviewJob,
  ForgeRepositoryJob,
  WakeJob,
]);
export type Job = v.InferOutput<typeof Job>;
export type StepJob = v.InferOutput<typeof StepJob>;
type WakeJob = v.InferOutput<typeof WakeJob>;
export type ForgeJob = Exclude<Job, StepJob | WakeJob>;

export function parse(body: string): Job {
  return v.parse(Job, JSON.parse(body));
}
