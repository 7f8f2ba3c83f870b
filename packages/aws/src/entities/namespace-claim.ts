/** One project holds a namespace of a cluster; gsi1 lists a project's, so an apply can give them up. */
import { type Catalog, sha256 } from '@svc/core';
import * as v from 'valibot';
import { type Item, indexPattern, itemSchema, type Key, readItem, recordEntries } from './entity.ts';

export const type = 'namespace_claim';

export const key = (claim: Catalog.NamespaceKey): Key => ({
  pk: `NSCLAIM#${sha256(`${claim.cluster}\n${claim.namespace}`).slice(0, 32)}`,
  sk: 'NSCLAIM',
});

/** The namespaces one project's baselines claim, by cluster and namespace. */
export const ofProject = indexPattern('gsi1', {
  partition: ({ project }: { project: string }) => `NSCLAIMS#${project}`,
  sort: (claim: Catalog.NamespaceClaim) => `${claim.cluster}#${claim.namespace}`,
  newestFirst: false,
});

export const toItem = (claim: Catalog.NamespaceClaim): Item => ({
  ...key(claim),
  item_type: type,
  ...ofProject.entry(claim),
  ...claim,
});

const schema = itemSchema(
  type,
  recordEntries<Catalog.NamespaceClaim>()({
    cluster: v.string(),
    namespace: v.string(),
    project: v.string(),
    baseline: v.string(),
  }),
);

export const fromItem = (item: Item): Catalog.NamespaceClaim => readItem(schema, item);
