import type { AuditStore } from '../auth/ports.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import type { Clock } from '../clock.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import type { CompositionStore } from '../compositions/ports.ts';
import type { FrontendStore } from '../frontends/ports.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { CheckRecord } from './model.ts';

/**
 * The checks of compositions. The worker's routing check is written with the step that ran it, in
 * the rollout's write (`RolloutStore.commit`); a recorded result is put on its own.
 */
export interface CheckStore {
  put(check: CheckRecord): Promise<void>;
  /** Newest first. */
  list(compositionId: string, page: PageRequest): Promise<Page<CheckRecord>>;
}

export interface CheckDeps {
  checks: CheckStore;
  compositions: CompositionStore;
  catalog: CatalogStore;
  /** Every cluster of the stage: a check's fingerprint is read on its composition's. */
  clusters: ClusterRegistry;
  /** Frontend checks are stale once their binding changed. */
  frontends: FrontendStore;
  audit: AuditStore;
  clock: Clock;
}
