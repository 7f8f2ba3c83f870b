import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export default defineCommand({
  name: 'composition destroy',
  summary: 'Destroy a composition (asynchronous, repeatable); accepted in every phase.',
  notes: ['stdout is the composition as it stands after the request (phase destroying).'],
  positionals: compositionId,
  flags: {},
  run: ({ args, context }) => api(context).call('destroyComposition', { path: { id: checkId(args.id) } }),
});
