/** The last reconciliation sweep's run. */
import { Forge } from '@svc/core';
import { type Item, itemSchema, type Key, readItem, recordEntries } from './entity.ts';
import { partition } from './forge-health.ts';

export const type = 'forge_reconciliation';

export const key: Key = { pk: partition, sk: 'RECONCILIATION' };

export const toItem = (run: Forge.ReconciliationRun): Item => ({ ...key, item_type: type, ...run });

/** The shape the forge status reports its last reconciliation in. */
const schema = itemSchema(
  type,
  recordEntries<Forge.ReconciliationRun>()(Forge.ForgeStatusView.entries.reconciliation.wrapped.entries),
);

export const fromItem = (item: Item): Forge.ReconciliationRun => readItem(schema, item);
