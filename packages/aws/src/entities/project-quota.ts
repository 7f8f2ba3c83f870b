/**
 * The count of a project's live compositions (`live`): the create transaction adds one on condition
 * that the quota is not reached; the write that finishes a destroy takes it back. Never read whole.
 */
import type { Key } from './entity.ts';

export const type = 'project_quota';

export const key = (project: string): Key => ({ pk: `QUOTA#${project}`, sk: 'LIVE' });
