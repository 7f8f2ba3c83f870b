import type { Page, PageRequest } from '../paging.ts';
import type { BuildFilter, SourceRef } from './model.ts';
import type { Build } from './schema.ts';

export interface BuildStore {
  get(id: string): Promise<Build | null>;
  /** Writes the build unless one with its id exists; answers which happened. */
  put(build: Build): Promise<'created' | 'exists'>;
  /** Newest first. */
  list(project: string, filter: BuildFilter, page: PageRequest): Promise<Page<Build>>;
  /** Records a publication of a build for a ref (every publication, so the newest says where the ref is). */
  putRef(entry: SourceRef): Promise<void>;
  /** The newest publication for exactly this ref; null when CI never published one. */
  latestRef(project: string, component: string, repository: string, ref: string): Promise<SourceRef | null>;
}
