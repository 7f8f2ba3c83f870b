import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'frontend',
  summary: 'Bind static frontend revisions to compositions, resolve, publish and record checks.',
  commands: {
    bind: () => import('./bind.ts'),
    resolve: () => import('./resolve.ts'),
    publish: () => import('./publish.ts'),
    check: () => import('./check.ts'),
  },
  summaries: {
    bind: 'Bind a frontend revision to a composition.',
    resolve: 'The bound composition: its preview URL once it is ready.',
    publish: 'Record where the frontend revision is published.',
    check: 'Record a check result against a composition generation.',
  },
});
