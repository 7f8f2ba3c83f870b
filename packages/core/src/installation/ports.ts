import type { CatalogStore } from '../catalog/ports.ts';
import type { ManifestLimits } from '../catalog/validate.ts';
import type { Clock } from '../clock.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';

export interface InstallationDeps {
  catalog: CatalogStore;
  /** Every cluster of the stage: each is checked, and each baseline on its own. */
  clusters: ClusterRegistry;
  clock: Clock;
  /** What the installation grants (the stage's message topics). */
  manifestLimits: ManifestLimits;
}
