import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'auth',
  summary: 'Which identity requests carry; browser login and logout.',
  commands: {
    status: () => import('./status.ts'),
    login: () => import('./login.ts'),
    logout: () => import('./logout.ts'),
  },
});
