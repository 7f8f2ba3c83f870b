/** A published build: which image a source revision produced. Kept forever. */
import { Builds } from '@svc/core';
import { type Item, indexEntry, itemSchema, type Key, readItem, timeOrdered } from './entity.ts';

export const type = 'build';

export const key = (id: string): Key => ({ pk: `BUILD#${id}`, sk: 'BUILD' });

/** gsi1: a project's builds; gsi2: one component's. Newest first. */
export const ofProject = (project: string) => `BUILDS#${project}`;
export const ofComponent = (project: string, component: string) => `BUILDS#${project}#${component}`;

export function toItem(build: Builds.Build): Item {
  const order = timeOrdered(build.published_at, build.id);
  return {
    ...key(build.id),
    item_type: type,
    ...build,
    ...indexEntry('gsi1', ofProject(build.project), order),
    ...indexEntry('gsi2', ofComponent(build.project, build.component), order),
  };
}

const schema = itemSchema(type, Builds.BuildView.entries);

export const fromItem = (item: Item): Builds.Build => readItem(schema, item);
