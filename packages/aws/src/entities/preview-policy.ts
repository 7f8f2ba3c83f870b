/**
 * A repository's preview policy in a project: one item per project and repository (in lower case:
 * the forge compares `owner/name` case-insensitively). Its TTL is stored as `preview_ttl`, since
 * `ttl` is the table's expiry attribute.
 */
import { Forge } from '@svc/core';
import * as v from 'valibot';
import { type Item, indexEntry, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'preview_policy';

/** Forge keys hold the repository in lower case. */
export const repositoryKey = (repository: string) => repository.toLowerCase();

export const key = (project: string, repository: string): Key => ({
  pk: `POLICY#${project}#${repositoryKey(repository)}`,
  sk: 'POLICY',
});

/** gsi1: every policy, by project and repository; gsi2: a repository's policies (one per project). */
export const all = 'POLICIES';
export const ofRepository = (repository: string) => `POLICIES#${repositoryKey(repository)}`;

export function toItem(policy: Forge.PreviewPolicy): Item {
  const { ttl: preview_ttl, ...fields } = policy;
  return {
    ...key(policy.project, policy.repository),
    item_type: type,
    ...fields,
    preview_ttl,
    ...indexEntry('gsi1', all, `${policy.project}#${repositoryKey(policy.repository)}`),
    ...indexEntry('gsi2', ofRepository(policy.repository), policy.project),
  };
}

const { ttl: _ttl, ...stored } = Forge.PreviewPolicyView.entries;

const schema = v.pipe(
  itemSchema(type, { ...stored, preview_ttl: v.string() }),
  v.transform(({ preview_ttl, ...policy }): Forge.PreviewPolicy => ({ ...policy, ttl: preview_ttl })),
);

export const fromItem = (item: Item): Forge.PreviewPolicy => readItem(schema, item);
