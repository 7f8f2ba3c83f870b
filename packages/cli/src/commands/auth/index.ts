import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'auth',
  summary: 'Which identity requests carry; browser login and logout.',
  commands: {
    status: () => import('./status.ts'),
    login: () => import('./login.ts'),
    logout: () => import('./logout.ts'),
  },
  summaries: {
    status: 'The effective credential source and whether the server accepts it.',
    login: 'Log in through a browser (password or identity-provider installations).',
    logout: "Forget this server's saved login.",
  },
});
