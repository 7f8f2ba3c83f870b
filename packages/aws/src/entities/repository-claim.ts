/**
 * The project a repository belongs to: taken by the first preview policy saved for it, in that
 * save's transaction (free, or already the project's), and given back only by deleting that policy.
 * Keyed by the repository in lower case, as the forge compares `owner/name`.
 */
import * as v from 'valibot';
import { type Item, itemSchema, type Key, readItem } from './entity.ts';
import { repositoryKey } from './preview-policy.ts';

export const type = 'repository_claim';

export const key = (repository: string): Key => ({
  pk: `REPOCLAIM#${repositoryKey(repository)}`,
  sk: 'REPOCLAIM',
});

export interface RepositoryClaim {
  repository: string;
  project: string;
  claimed_at: string;
}

export const toItem = (claim: RepositoryClaim): Item => ({
  ...key(claim.repository),
  item_type: type,
  repository: repositoryKey(claim.repository),
  project: claim.project,
  claimed_at: claim.claimed_at,
});

const schema = itemSchema(type, { repository: v.string(), project: v.string(), claimed_at: v.string() });

export const fromItem = (item: Item): RepositoryClaim => readItem(schema, item);
