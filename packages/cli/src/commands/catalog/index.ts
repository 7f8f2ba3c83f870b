import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'catalog',
  summary: 'Validate and apply catalog manifests (projects, components, baselines); onboarding drafts.',
  commands: {
    validate: () => import('./validate.ts'),
    apply: () => import('./apply.ts'),
    draft: () => import('./draft/index.ts'),
  },
});
