/** The command tree. Each entry loads its module only when chosen. */
import { defineGroup } from '../command.ts';

export const root = defineGroup({
  name: '',
  summary: 'the command-line client of the Preview Composition Service',
  commands: {
    composition: () => import('./composition/index.ts'),
    catalog: () => import('./catalog/index.ts'),
    source: () => import('./source/index.ts'),
    frontend: () => import('./frontend/index.ts'),
    'pr-preview': () => import('./pr-preview/index.ts'),
    installation: () => import('./installation/index.ts'),
    admin: () => import('./admin/index.ts'),
    auth: () => import('./auth/index.ts'),
    mcp: () => import('./mcp.ts'),
    version: () => import('./version.ts'),
  },
});
