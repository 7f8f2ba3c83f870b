import type { CatalogStore } from '../catalog/ports.ts';
import type { ManifestLimits } from '../catalog/validate.ts';
import type { Clock } from '../clock.ts';
import type { ClusterPort } from '../cluster/ports.ts';

export interface InstallationDeps {
  catalog: CatalogStore;
  cluster: ClusterPort;
  clock: Clock;
  /** What the installation grants (the stage's message topics). */
  manifestLimits: ManifestLimits;
}
