import type { Page, PageRequest } from '../paging.ts';
import type { ProjectVersion } from './model.ts';
import type { NamespaceClaim, NamespaceKey } from './namespaces.ts';
import type { ProjectView } from './schema.ts';

export interface CatalogStore {
  /** The current version of a project, or null when it was never applied. */
  readProject(project: string): Promise<ProjectVersion | null>;
  /** A version by id (immutable, so cacheable); null when it does not exist. */
  readVersion(project: string, versionId: string): Promise<ProjectVersion | null>;
  /** Projects by name; `only` (when not null) keeps just those. */
  listProjects(page: PageRequest, only: readonly string[] | null): Promise<Page<ProjectView>>;
  /**
   * Makes each `next` version current, all or nothing, provided each project's current version is
   * still `previous_version_id` (null: the project must not exist yet). False when another apply won.
   */
  commit(changes: readonly { next: ProjectVersion; previous_version_id: string | null }[]): Promise<boolean>;
  /**
   * Takes the claims for their project (each one absent or already the project's). Answers the
   * claims other projects hold, which are left as they are; the free ones are taken either way.
   */
  claimNamespaces(claims: readonly NamespaceClaim[]): Promise<NamespaceClaim[]>;
  /** Every namespace the project holds. */
  heldNamespaces(project: string): Promise<NamespaceClaim[]>;
  /** Gives up these namespaces, each only while it is still the project's. */
  releaseNamespaces(project: string, release: readonly NamespaceKey[]): Promise<void>;
}

/**
 * The composition store as far as an apply asks it: the project's compositions not yet destroyed
 * (`CompositionStore.list`), to keep a namespace one of them still lives in.
 */
export interface LiveCompositions {
  list(
    filter: { project: string | null; projects: readonly string[] | null },
    page: PageRequest,
  ): Promise<Page<{ id: string; namespace: string; cluster?: string | undefined }>>;
}
