import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkCursor, checkId, checkLimit } from '../../validate.ts';
import { compositionId, pageFlags } from '../_shared.ts';

export default defineCommand({
  name: 'composition verification',
  summary: 'Retained verification checks, newest first; freshness is computed when read.',
  positionals: compositionId,
  flags: pageFlags,
  run: ({ flags, args, context }) =>
    api(context).call('listVerification', {
      path: { id: checkId(args.id) },
      query: { limit: checkLimit(flags.limit), after: checkCursor(flags.after) },
    }),
});
