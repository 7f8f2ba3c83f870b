import {
  type CompositionRecord,
  type Operation,
  type RolloutTarget,
  rolloutTarget,
  type StepFailure,
  type StepOutcome,
} from '@svc/core';
import type { WorkerDeps } from '../deps.ts';

/** Thrown by `fence()`: a later operation took over, so this one stops before writing. */
export class Superseded extends Error {
  override name = 'Superseded';
}

export interface StepContext {
  deps: WorkerDeps;
  composition: CompositionRecord;
  operation: Operation;
  /** Re-reads the composition; throws Superseded when this operation is no longer the current one. */
  fence(): Promise<CompositionRecord>;
}

export type Step = (context: StepContext) => Promise<StepOutcome>;

/** The rollout's catalog entries, from the catalog version the composition was planned from. */
export async function readTarget({ deps, composition }: StepContext): Promise<RolloutTarget | StepFailure> {
  const catalog = await deps.catalog.readVersion(composition.project, composition.desired.catalog_version_id);
  return rolloutTarget(catalog, composition);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
