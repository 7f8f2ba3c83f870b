import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkInteger, checkName } from '../../../validate.ts';

export default defineCommand({
  name: 'catalog draft delete',
  summary: 'Discard your onboarding draft of a project at its current revision.',
  notes: [
    'stdout is { project, revision, deleted: true }. A stale --revision exits 4 (409 stale_revision);',
    'no draft exits 1 (404).',
  ],
  positionals: { project: { description: 'Project the draft is for.' } },
  flags: {
    revision: {
      type: 'string',
      required: true,
      value: 'int',
      description: 'The current revision of the draft (what get or save printed).',
    },
  },
  async run({ flags, args, context }) {
    const project = checkName(args.project, '<project>');
    const revision = checkInteger(flags.revision, '--revision', { min: 0, max: 2 ** 31 - 1 });
    await api(context).call('discardOnboardingDraft', { path: { project }, query: { revision } });
    return { project, revision, deleted: true };
  },
});
