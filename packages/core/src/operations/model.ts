/**
 * An operation: one create, update or destroy of a composition, run by the worker step by step.
 * Its record is fenced (`epoch`, `lock_version`) and leased to the chain that runs it (lease.ts).
 */

export const OperationKind = { Create: 'create', Update: 'update', Destroy: 'destroy' } as const;
export type OperationKind = (typeof OperationKind)[keyof typeof OperationKind];

export const OperationStatus = {
  Pending: 'pending',
  Running: 'running',
  Succeeded: 'succeeded',
  Failed: 'failed',
  /** A later operation (a destroy) took over before this one finished. */
  Superseded: 'superseded',
} as const;
export type OperationStatus = (typeof OperationStatus)[keyof typeof OperationStatus];

export const OwnerKind = { User: 'user', Forge: 'forge' } as const;
export type OwnerKind = (typeof OwnerKind)[keyof typeof OwnerKind];

export interface Owner {
  kind: OwnerKind;
  subject: string;
}

/** What waiting steps saw so far: when each fork first looked unhealthy, how many were ready. */
export interface Observations {
  bad_since: Record<string, { reason: string; since: string }>;
  ready: number | null;
  /**
   * The composition's cluster did not answer the step, which waits for it: since when and why (a
   * short, outward cause). Absent on older operations, as when the cluster answers.
   */
  cluster_unavailable?: ClusterUnavailable;
}

export interface ClusterUnavailable {
  cluster: string;
  cause: string;
  since: string;
}

/** Observations of an operation whose current step has not waited yet. */
export const noObservations = (): Observations => ({ bad_since: {}, ready: null });

export interface Operation {
  id: string;
  composition_id: string;
  kind: OperationKind;
  status: OperationStatus;
  generation: number;
  epoch: number;
  steps: StepName[];
  /** Index into `steps` of the next step to run; equals `steps.length` when done. */
  next_step: number;
  /**
   * When the redispatch sweep may take the operation over: while a chain holds it, the end of that
   * chain's lease (renewed as it works); once handed to the queue, when its next message should have
   * been picked up.
   */
  due_at: string | null;
  /** The chain holding the operation's lease, null when none does (absent on older records). */
  lease_holder?: string | null;
  created_at: string;
  updated_at: string;
  error: { code: string; message: string } | null;
  requested_by: Owner;
  observations: Observations;
  lock_version: number;
}

/** The steps operations are made of; each is idempotent (see the worker's step of that name). */
export const StepName = {
  Apply: 'apply',
  AwaitRollout: 'await-rollout',
  Verify: 'verify',
  Finish: 'finish',
  Delete: 'delete',
  AwaitDeletion: 'await-deletion',
  ReleaseMessaging: 'release-messaging',
} as const;
export type StepName = (typeof StepName)[keyof typeof StepName];

/** Steps of each operation kind, in order. */
export const operationSteps: Record<OperationKind, readonly StepName[]> = {
  create: [StepName.Apply, StepName.AwaitRollout, StepName.Verify, StepName.Finish],
  update: [StepName.Apply, StepName.AwaitRollout, StepName.Verify, StepName.Finish],
  // The anchor first: the forks go whatever happens to the queues, which have a step of their own.
  destroy: [StepName.Delete, StepName.AwaitDeletion, StepName.ReleaseMessaging, StepName.Finish],
};
