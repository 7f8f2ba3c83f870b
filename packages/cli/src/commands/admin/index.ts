import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'admin',
  summary: 'Installation administration (Admins only).',
  commands: {
    users: () => import('./users/index.ts'),
  },
});
