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

export const Job = v.variant('kind', [StepJob]);
export type Job = v.InferOutput<typeof Job>;

export function parse(body: string): Job {
  return v.parse(Job, JSON.parse(body));
}
