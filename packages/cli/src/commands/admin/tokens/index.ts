import { defineGroup } from '../../../command.ts';

export default defineGroup({
  name: 'admin tokens',
  summary: 'Machine tokens for CI and agents: list, issue, revoke.',
  commands: {
    list: () => import('./list.ts'),
    issue: () => import('./issue.ts'),
    revoke: () => import('./revoke.ts'),
  },
});
