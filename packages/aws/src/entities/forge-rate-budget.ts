/** An installation's rate budget, as the forge's response headers last said it. */
import { Forge } from '@svc/core';
import { type Item, itemSchema, type Key, type PartitionPrefix, readItem, recordEntries } from './entity.ts';
import { partition } from './forge-health.ts';

export const type = 'forge_rate_budget';

const prefix = 'BUDGET#';

export const key = (installation: string): Key => ({ pk: partition, sk: `${prefix}${installation}` });

export const all: PartitionPrefix = { partition, prefix };

export const toItem = (budget: Forge.RateBudget): Item => ({
  ...key(budget.installation),
  item_type: type,
  ...budget,
});

/** The shape the forge status reports its rate limits in. */
const schema = itemSchema(
  type,
  recordEntries<Forge.RateBudget>()(Forge.ForgeStatusView.entries.rate_limits.item.entries),
);

export const fromItem = (item: Item): Forge.RateBudget => readItem(schema, item);
