import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkName } from '../../../validate.ts';

export default defineCommand({
  name: 'catalog draft get',
  summary: 'Your onboarding draft of a project; exit 1 (404) when you have none.',
  positionals: { project: { description: 'Project the draft is for.' } },
  flags: {},
  run: ({ args, context }) =>
    api(context).call('getOnboardingDraft', { path: { project: checkName(args.project, '<project>') } }),
});
