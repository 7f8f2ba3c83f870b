import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'admin',
  summary: 'Installation administration (Admins only): people and their sign-ins, the queues.',
  commands: {
    users: () => import('./users/index.ts'),
    dlq: () => import('./dlq.ts'),
  },
});
