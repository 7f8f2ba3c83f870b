import { type Checks, type Cluster, type Compositions, type Operations, Rollout } from '@svc/core';
import type { WorkerDeps } from '../deps.ts';

/** Thrown by `fence()`: a later operation took over, so this one stops before writing. */
export class Superseded extends Error {
  override name = 'Superseded';
}

/** Thrown by `fence()`: the redispatch sweep took this chain's operation over; the new chain carries it on. */
export class LeaseLost extends Error {
  override name = 'LeaseLost';
}

export interface StepContext {
  deps: WorkerDeps;
  /** The composition's cluster: the one its steps read and write. */
  cluster: Cluster.ClusterPort;
  composition: Compositions.CompositionRecord;
  operation: Operations.Operation;
  seen: ChainSeen;
  /** The queue's last receive of this message: a failure now fails the operation, unless the step gives up itself. */
  lastAttempt: boolean;
  /**
   * Throws LeaseLost when this chain's lease was taken over; re-reads the composition and throws
   * Superseded when this operation is no longer the current one.
   * A step calls it before a cluster write that follows a wait: the runner has just read the
   * operation as current when a step starts its invocation.
   */
  fence(): Promise<Compositions.CompositionRecord>;
}

/**
 * What the steps of one invocation learned, for a later step of the same invocation to use instead
 * of reading it again a moment later. Empty for a step that starts an invocation (after a wait, a
 * retry or a spent chain budget): that step reads for itself.
 */
export interface ChainSeen {
  /** The anchor ConfigMap as `apply` applied it. */
  anchor?: Cluster.ClusterObject;
  /** The forks' Deployments as `await-rollout` saw them all rolled out. */
  forks?: Cluster.Deployment[];
  /** The routing check `verify` ran. */
  check?: Checks.CheckRecord;
}

export type Step = (context: StepContext) => Promise<Rollout.StepOutcome>;

/**
 * The cluster of a composition whose cluster the stage does not know, for the steps that ask it
 * nothing (`Rollout.needsCluster`): any call is a bug, and rejects saying which cluster it was.
 */
export function noCluster(reason: string): Cluster.ClusterPort {
  const refuse = async () => {
    throw new Error(`no cluster to ask: ${reason}`);
  };
  return new Proxy({} as Cluster.ClusterPort, {
    get: (_, property) => (property === 'health' ? { name: 'cluster', check: refuse } : refuse),
  });
}

/** The rollout's catalog entries, from the catalog version the composition was planned from. */
export async function readTarget({
  deps,
  composition,
}: StepContext): Promise<Rollout.RolloutTarget | Rollout.StepFailure> {
  const catalog = await deps.catalog.readVersion(composition.project, composition.desired.catalog_version_id);
  return Rollout.rolloutTarget(catalog, composition);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
