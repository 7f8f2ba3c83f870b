import type { Frontends } from '@svc/core';
import * as Keys from './keys.ts';
import { getLive, putVersioned, type Table } from './table.ts';

/** Writes are conditional on the version read; a binding past its `ttl` counts as absent. */
export function dynamoFrontendStore(table: Table): Frontends.FrontendStore {
  return {
    get: (project, frontend, revision, now) =>
      getLive<Frontends.FrontendBinding>(table, Keys.frontendBinding(project, frontend, revision), now),

    put: (binding, expected, now) =>
      putVersioned(
        table,
        {
          ...Keys.frontendBinding(binding.project, binding.frontend, binding.revision),
          item_type: Keys.ItemType.FrontendBinding,
          ...binding,
        },
        binding.expires_at,
        { counter: 'version', expected },
        now,
      ),
  };
}
