import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'admin',
  summary:
    'Installation administration (Admins only): people and their sign-ins, machine tokens, the queues, draining a cluster or the stage.',
  commands: {
    users: () => import('./users/index.ts'),
    tokens: () => import('./tokens/index.ts'),
    dlq: () => import('./dlq.ts'),
    drain: () => import('./drain.ts'),
  },
});
