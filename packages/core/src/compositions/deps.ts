import type { BuildStore } from '../builds/model.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import type { Clock } from '../clock.ts';
import type { Answer } from '../idempotency/idempotent.ts';
import type { IdempotencyStore } from '../idempotency/ports.ts';
import type { CompositionStore, JobQueue } from './ports.ts';
import type { CompositionView } from './schema.ts';

export interface CompositionDeps {
  compositions: CompositionStore;
  catalog: CatalogStore;
  builds: BuildStore;
  idempotency: IdempotencyStore;
  jobs: JobQueue;
  clock: Clock;
  /** The preview URL of composition `id` on a baseline's preview domain. */
  previewUrl: (id: string, previewDomain: string) => string;
  log?: (entry: Record<string, unknown>) => void;
  /** Live (not destroyed) compositions a project may have; absent = no quota (dev mode). */
  liveCompositionQuota?: number | undefined;
}

/** A 202 with the composition as it stands after the request. */
export type Accepted = Answer<CompositionView>;
