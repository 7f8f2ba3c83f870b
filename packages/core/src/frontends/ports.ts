import type { FrontendBinding } from './schema.ts';

export interface FrontendStore {
  /** The binding of a frontend revision; null when there is none (or it expired). */
  get(project: string, frontend: string, revision: string, now: Date): Promise<FrontendBinding | null>;
  /**
   * Writes `binding` provided the stored one is at `expected_version` (0: there is none, or it
   * expired). False when another version is current.
   */
  put(binding: FrontendBinding, expected_version: number, now: Date): Promise<boolean>;
}
