/**
 * A repository's preview policy in a project: one item per project and repository (in lower case:
 * the forge compares `owner/name` case-insensitively). Its TTL is stored as `preview_ttl`, since
 * `ttl` is the table's expiry attribute.
 */
import { Forge } from '@svc/core';
import * as v from 'valibot';
import { everyIn, type Item, indexPattern, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'preview_policy';

/** Forge keys hold the repository in lower case. */
export const repositoryKey = (repository: string) => repository.toLowerCase();

export const key = (project: string, repository: string): Key => ({
  pk: `POLICY#${project}#${repositoryKey(repository)}`,
  sk: 'POLICY',
});

type Placed = Pick<Forge.PreviewPolicy, 'project' | 'repository'>;

/** Every policy, by project and repository. */
export const listed = everyIn('gsi1', 'POLICIES', {
  sort: (policy: Placed) => `${policy.project}#${repositoryKey(policy.repository)}`,
  newestFirst: false,
});

/** A repository's policies (one per project), by project. */
export const ofRepository = indexPattern('gsi2', {
  partition: ({ repository }: { repository: string }) => `POLICIES#${repositoryKey(repository)}`,
  sort: (policy: Placed) => policy.project,
  newestFirst: false,
});

export function toItem(policy: Forge.PreviewPolicy): Item {
  const { ttl: preview_ttl, ...fields } = policy;
  return {
    ...key(policy.project, policy.repository),
    item_type: type,
    ...fields,
    preview_ttl,
    ...listed.entry(policy),
    ...ofRepository.entry(policy),
  };
}

const { ttl: _ttl, ...stored } = Forge.PreviewPolicyView.entries;

const schema = v.pipe(
  // Policies saved before changes existed do not group; before deployments existed, they comment.
  itemSchema(type, {
    ...stored,
    group_by: v.optional(stored.group_by, Forge.GroupBy.None),
    feedback: v.optional(stored.feedback, Forge.FeedbackMode.Comment),
    preview_ttl: v.string(),
  }),
  v.transform(({ preview_ttl, ...policy }): Forge.PreviewPolicy => ({ ...policy, ttl: preview_ttl })),
);

export const fromItem = (item: Item): Forge.PreviewPolicy => readItem(schema, item);
