import type { CatalogStore } from '../catalog/ports.ts';
import type { ManifestLimits } from '../catalog/validate.ts';
import type { Clock } from '../clock.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import type { SleepSettings } from '../compositions/sleep.ts';
import type { ForgeStore } from '../forge/ports.ts';

export interface InstallationDeps {
  catalog: CatalogStore;
  /** Every cluster of the stage: each is checked, and each baseline on its own. */
  clusters: ClusterRegistry;
  clock: Clock;
  /** What the installation grants (the stage's message topics). */
  manifestLimits: ManifestLimits;
  /** The preview policies: a repository belongs to one project. */
  forgeStore: Pick<ForgeStore, 'listPolicies' | 'repositoryOwner'>;
  /** The stage's sleep settings, whose default may make baselines sleep; absent: `defaultSleepSettings`. */
  sleep?: SleepSettings | undefined;
}
