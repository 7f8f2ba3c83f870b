import type { BuildStore } from '../builds/ports.ts';
import type { NamespaceClaim } from '../catalog/namespaces.ts';
import type { CatalogStore } from '../catalog/ports.ts';
import type { Clock } from '../clock.ts';
import type { ClusterRegistry } from '../cluster/registry.ts';
import type { Answer } from '../idempotency/idempotent.ts';
import type { IdempotencyCompletion, IdempotencyStore } from '../idempotency/ports.ts';
import type { JobQueue } from '../jobs/ports.ts';
import type { Log } from '../log.ts';
import type { Guarded } from '../operations/fence.ts';
import type { Operation } from '../operations/model.ts';
import type { OperationStore } from '../operations/ports.ts';
import type { Page, PageRequest } from '../paging.ts';
import type { CompositionEvent, CompositionRecord } from './model.ts';
import type { CompositionView } from './schema.ts';
import type { SleepSettings } from './sleep.ts';

/** The worker's one write: a composition and an operation, each guarded, with events. */
export interface CompositionCommit {
  composition?: Guarded<CompositionRecord> | undefined;
  operation?: Guarded<Operation> | undefined;
  events?: CompositionEvent[] | undefined;
}

/** Compositions, their events and (as an OperationStore) their operations, in one table. */
export interface CompositionStore extends OperationStore {
  get(id: string): Promise<CompositionRecord | null>;
  /**
   * Compositions not yet destroyed, newest first; `project` filters, and so does `projects` (the
   * ones the caller may read) when not null.
   */
  list(
    filter: { project: string | null; projects: readonly string[] | null },
    page: PageRequest,
  ): Promise<Page<CompositionRecord>>;
  /**
   * Compositions not yet destroyed whose objects live on `cluster.name`, newest first (and, with
   * `unnamedToo`, those recorded before clusters were named, which live on the stage's only one).
   */
  listOnCluster(
    cluster: { name: string; unnamedToo: boolean },
    page: PageRequest,
  ): Promise<Page<CompositionRecord>>;
  /**
   * Writes a new composition with its first operation and events (and the idempotent answer), all
   * or nothing; with `quota`, only while the project has fewer than `quota` live compositions
   * (else a 429 `quota_exceeded`, nothing written). Finishing a destroy gives the place back.
   * `namespace` is taken for the project in the same write, or found already its own: another
   * project's (the project gave it up after this create planned) refuses with `namespace_taken`.
   */
  create(write: {
    quota?: number | undefined;
    namespace: NamespaceClaim;
    composition: CompositionRecord;
    operation: Operation;
    events: CompositionEvent[];
    idempotency?: IdempotencyCompletion | undefined;
  }): Promise<void>;
  /**
   * Replaces the composition if its `lock_version` is still `expected_lock_version`, together with
   * an optional new operation, an optional superseded one, and events. False when it changed.
   */
  replace(write: {
    composition: CompositionRecord;
    expected_lock_version: number;
    operation?: Operation | undefined;
    supersede?: { operation_id: string } | undefined;
    events: CompositionEvent[];
  }): Promise<boolean>;
  /**
   * The worker's write: the composition and/or an operation, each conditional on the
   * `lock_version` it read, plus events, all or nothing (the rollout's adds the checks its steps
   * ran: `RolloutStore`). False when either changed meanwhile.
   */
  commit(write: CompositionCommit): Promise<boolean>;
  appendEvents(events: readonly CompositionEvent[]): Promise<void>;
  /** Newest first. */
  listEvents(compositionId: string, page: PageRequest): Promise<Page<CompositionEvent>>;
  /** Compositions past `expires_at` whose destroy has not started, oldest first. */
  expired(now: Date, limit: number): Promise<CompositionRecord[]>;
}

export interface CompositionDeps {
  compositions: CompositionStore;
  catalog: CatalogStore;
  builds: BuildStore;
  idempotency: IdempotencyStore;
  jobs: JobQueue;
  clock: Clock;
  /** The preview URL of composition `id` on a baseline's preview domain, served by its cluster's gateway. */
  previewUrl: (id: string, previewDomain: string, cluster: string) => string;
  /** The clusters the stage knows: a baseline on another cannot take a composition. */
  clusters: Pick<ClusterRegistry, 'names'>;
  log: Log;
  /** The stage's sleep settings; absent: `defaultSleepSettings`. */
  sleep?: SleepSettings | undefined;
  /** Live (not destroyed) compositions a project may have; absent = no quota (dev mode). */
  liveCompositionQuota?: number | undefined;
}

/** A 202 with the composition as it stands after the request. */
export type Accepted = Answer<CompositionView>;
