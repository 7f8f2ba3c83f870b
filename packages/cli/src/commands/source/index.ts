import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'source',
  summary: 'Published builds: which image a source revision produced.',
  commands: {
    list: () => import('./list.ts'),
    resolve: () => import('./resolve.ts'),
    publish: () => import('./publish.ts'),
  },
});
