/** A suspended installation, by its account in lower case (GitHub compares logins case-insensitively). */
import type { Forge } from '@svc/core';
import * as v from 'valibot';
import { type Item, itemSchema, type Key, type PartitionPrefix, readItem, recordEntries } from './entity.ts';
import { partition } from './forge-health.ts';

export const type = 'forge_suspension';

const prefix = 'SUSPENDED#';

export const key = (account: string): Key => ({ pk: partition, sk: `${prefix}${account.toLowerCase()}` });

export const all: PartitionPrefix = { partition, prefix };

export const toItem = (suspension: Forge.InstallationSuspension): Item => ({
  ...key(suspension.account),
  item_type: type,
  ...suspension,
});

const schema = itemSchema(
  type,
  recordEntries<Forge.InstallationSuspension>()({
    account: v.string(),
    installation: v.number(),
    suspended_at: v.string(),
  }),
);

export const fromItem = (item: Item): Forge.InstallationSuspension => readItem(schema, item);
