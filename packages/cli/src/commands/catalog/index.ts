import { defineGroup } from '../../command.ts';

export default defineGroup({
  name: 'catalog',
  summary: 'Validate and apply catalog manifests (projects, components, baselines); onboarding drafts.',
  commands: {
    validate: () => import('./validate.ts'),
    apply: () => import('./apply.ts'),
    draft: () => import('./draft/index.ts'),
  },
  summaries: {
    validate: 'Dry-run validation of a manifest; changes nothing.',
    apply: 'Register a manifest atomically; re-applying is a no-op.',
    draft: 'Save, read and discard your non-secret onboarding draft of a project.',
  },
});
