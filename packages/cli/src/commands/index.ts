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
    installation: () => import('./installation/index.ts'),
    auth: () => import('./auth/index.ts'),
    version: () => import('./version.ts'),
  },
  summaries: {
    composition: 'Create, wait for, inspect, update and destroy compositions.',
    catalog: 'Validate and apply catalog manifests; onboarding drafts.',
    source: 'Published builds of a project.',
    frontend: 'Frontend revisions bound to compositions: bind, resolve, publish, check.',
    installation: 'Preflight the target infrastructure (Admin).',
    auth: 'Which identity requests carry; login and logout.',
    version: "The CLI's release and commit, and the server's when reachable.",
  },
});
