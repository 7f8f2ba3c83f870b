import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { previewId } from './_shared.ts';

export default defineCommand({
  name: 'pr-preview stop',
  summary: 'Suppress automation for the pull request and clean its preview up (asynchronous).',
  notes: ['Automation stays off, whatever the labels, until svc pr-preview restart.'],
  positionals: previewId,
  flags: {},
  run: ({ args, context }) => api(context).call('stopForgePreview', { path: { id: checkId(args.id) } }),
});
