import type { CheckRecord } from '../checks/model.ts';
import type { CompositionCommit, CompositionStore } from '../compositions/ports.ts';

/**
 * The compositions' store as the worker writes it: a step's routing check goes into the write
 * that records the step (chain.ts), all or nothing, so a chain that stops before writing runs the
 * step again, check and all.
 */
export interface RolloutStore extends CompositionStore {
  commit(write: CompositionCommit & { checks?: CheckRecord[] | undefined }): Promise<boolean>;
}
