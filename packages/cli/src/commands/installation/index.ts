import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'installation',
  summary: 'Preflight the target infrastructure of an installation.',
  commands: { check: () => import('./check.ts') },
});
