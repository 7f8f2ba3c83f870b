/** A frontend revision bound to a composition, written over the version read, kept until its `expires_at`. */
import { Frontends } from '@svc/core';
import { epochSeconds, type Item, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'frontend_binding';

export const key = (project: string, frontend: string, revision: string): Key => ({
  pk: `FRONTEND#${project}#${frontend}`,
  sk: `REV#${revision}`,
});

export const toItem = (binding: Frontends.FrontendBinding): Item => ({
  ...key(binding.project, binding.frontend, binding.revision),
  item_type: type,
  ...binding,
  ttl: epochSeconds(binding.expires_at),
});

const schema = itemSchema(type, Frontends.FrontendBindingView.entries);

export const fromItem = (item: Item): Frontends.FrontendBinding => readItem(schema, item);
