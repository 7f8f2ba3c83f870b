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
});
