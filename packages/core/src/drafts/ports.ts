import type { Draft } from './schema.ts';

export interface DraftStore {
  /** The author's draft of the project; null when there is none (or it expired). */
  get(project: string, author: string, now: Date): Promise<Draft | null>;
  /**
   * Writes `draft` provided the stored draft is at `expected_revision` (0: there is none, or it
   * expired). False when another revision is current.
   */
  put(draft: Draft, expected_revision: number, now: Date): Promise<boolean>;
  /** Deletes the draft if it is at `revision`; false when it is absent or at another revision. */
  delete(project: string, author: string, revision: number, now: Date): Promise<boolean>;
}
