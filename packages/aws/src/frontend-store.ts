import type { Frontends } from '@svc/core';
import { FrontendBinding } from './entities/index.ts';
import { getLive, putVersioned, type Table } from './table.ts';

/** Writes are conditional on the version read; a binding past its `ttl` counts as absent. */
export function dynamoFrontendStore(table: Table): Frontends.FrontendStore {
  return {
    get: (project, frontend, revision, now) =>
      getLive(table, FrontendBinding.key(project, frontend, revision), now, FrontendBinding.fromItem),

    put: (binding, expected, now) =>
      putVersioned(table, FrontendBinding.toItem(binding), { counter: 'version', expected }, now),
  };
}
