import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'installation',
  summary: 'Preflight the target infrastructure of an installation.',
  commands: { check: () => import('./check.ts') },
  summaries: {
    check: 'Read-only checks of the cluster for the baselines a specification names; exits 0, 1 or 2.',
  },
});
