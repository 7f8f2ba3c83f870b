import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export default defineCommand({
  name: 'composition endpoints',
  summary: 'Preview URLs and routing readiness.',
  notes: [
    'The public preview URL is .endpoints.public.url; .endpoints.public.ready says whether it routes yet.',
  ],
  positionals: compositionId,
  flags: {},
  run: ({ args, context }) => api(context.http).compositionEndpoints(checkId(args.id)),
});
