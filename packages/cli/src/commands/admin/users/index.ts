import { defineGroup } from '../../../command.ts';

export default defineGroup({
  name: 'admin users',
  summary: 'People the service knows, and their sign-ins.',
  commands: {
    list: () => import('./list.ts'),
    set: () => import('./set.ts'),
    disable: () => import('./disable.ts'),
    delete: () => import('./delete.ts'),
    'sign-ins': () => import('./sign-ins.ts'),
    'end-sign-ins': () => import('./end-sign-ins.ts'),
  },
});
