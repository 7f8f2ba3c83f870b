/** An onboarding draft: one item per project and author, written over the revision read, kept 90 days after its last save. */
import { Drafts, sha256 } from '@svc/core';
import { epochSeconds, type Item, itemSchema, type Key, readItem } from './entity.ts';

export const type = 'draft';

/** The author is hashed so any subject makes a safe key; the item stores it. */
export const key = (project: string, author: string): Key => ({
  pk: `DRAFT#${project}#${sha256(author).slice(0, 32)}`,
  sk: 'DRAFT',
});

export const toItem = (draft: Drafts.Draft): Item => ({
  ...key(draft.project, draft.author),
  item_type: type,
  ...draft,
  ttl: epochSeconds(draft.expires_at),
});

const schema = itemSchema(type, Drafts.DraftView.entries);

export const fromItem = (item: Item): Drafts.Draft => readItem(schema, item);
