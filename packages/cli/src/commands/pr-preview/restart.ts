import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { previewId } from './_shared.ts';

export default defineCommand({
  name: 'pr-preview restart',
  summary: 'A fresh preview (new URL and TTL) once the old one is cleaned up (asynchronous).',
  notes: [
    'Needs an open pull request carrying the trigger label and an enabled policy; otherwise exits 4',
    '(409 preview_not_restartable) and errors[].code names what is missing.',
  ],
  positionals: previewId,
  flags: {},
  run: ({ args, context }) => api(context).call('restartForgePreview', { path: { id: checkId(args.id) } }),
});
