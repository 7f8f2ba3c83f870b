import type { Checks } from '@svc/core';
import { Check } from './entities/index.ts';
import { putItem, queryPage, type Table } from './table.ts';

/** A composition's checks, newest first; the worker's routing checks are written by the rollout's commit. */
export function dynamoCheckStore(table: Table): Checks.CheckStore {
  return {
    put: (check) => putItem(table, Check.toItem(check)),
    list: (compositionId, page) =>
      queryPage(table, { ...Check.of(compositionId), newestFirst: true }, page, Check.fromItem),
  };
}
