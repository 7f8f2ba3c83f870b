import { defineGroup } from '../../../command.ts';

export default defineGroup({
  name: 'catalog draft',
  summary: 'Your onboarding draft of a project: non-secret work in progress, one per project and author.',
  commands: {
    save: () => import('./save.ts'),
    get: () => import('./get.ts'),
    delete: () => import('./delete.ts'),
  },
});
