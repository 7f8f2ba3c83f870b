/** A published build: which image a source revision produced. Kept forever. */
import { Builds } from '@svc/core';
import { type Item, indexPattern, itemSchema, type Key, readItem, timeOrdered } from './entity.ts';

export const type = 'build';

export const key = (id: string): Key => ({ pk: `BUILD#${id}`, sk: 'BUILD' });

const published = (build: Pick<Builds.Build, 'published_at' | 'id'>) =>
  timeOrdered(build.published_at, build.id);

/** A project's builds, newest first. */
export const ofProject = indexPattern('gsi1', {
  partition: ({ project }: { project: string }) => `BUILDS#${project}`,
  sort: published,
  newestFirst: true,
});

/** One component's builds, newest first. */
export const ofComponent = indexPattern('gsi2', {
  partition: ({ project, component }: { project: string; component: string }) =>
    `BUILDS#${project}#${component}`,
  sort: published,
  newestFirst: true,
});

export function toItem(build: Builds.Build): Item {
  return {
    ...key(build.id),
    item_type: type,
    ...build,
    ...ofProject.entry(build),
    ...ofComponent.entry(build),
  };
}

const schema = itemSchema(type, Builds.BuildView.entries);

export const fromItem = (item: Item): Builds.Build => readItem(schema, item);
