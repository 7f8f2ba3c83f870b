import type { Page, PageRequest } from '../paging.ts';
import type { ProjectVersion } from './model.ts';
import type { ProjectView } from './views.ts';

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
}
