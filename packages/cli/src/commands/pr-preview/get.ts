import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { previewId } from './_shared.ts';

export default defineCommand({
  name: 'pr-preview get',
  summary: 'Lifecycle state, pull request, head commit, builds, composition, URL and last error.',
  positionals: previewId,
  flags: {},
  run: ({ args, context }) => api(context).call('getForgePreview', { path: { id: checkId(args.id) } }),
});
