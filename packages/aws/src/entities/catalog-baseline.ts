/** A baseline of a catalog version. */
import type { Catalog } from '@svc/core';
import { versionEntries } from './catalog-version.ts';

export const { type, key, toItem, fromItem } = versionEntries<Catalog.Baseline, 'catalog-baseline'>(
  'catalog-baseline',
  'BASELINE#',
);
