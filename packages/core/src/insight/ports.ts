import type { CatalogStore } from '../catalog/ports.ts';
import type { CheckStore } from '../checks/ports.ts';
import type { Clock } from '../clock.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import type { CompositionStore } from '../compositions/ports.ts';
import type { FrontendStore } from '../frontends/ports.ts';
import type { Log } from '../log.ts';

/** What the insight reads (logs, diagnosis, verification, observability links) need. */
export interface InsightDeps {
  compositions: CompositionStore;
  checks: CheckStore;
  catalog: CatalogStore;
  /** Every cluster of the stage: a composition is read on its own. */
  clusters: ClusterRegistry;
  clock: Clock;
  /** Frontend checks are stale once their binding changed. */
  frontends: FrontendStore;
  /** The server log: what an answer only names by a short cause is written here in full. */
  log: Log;
}
