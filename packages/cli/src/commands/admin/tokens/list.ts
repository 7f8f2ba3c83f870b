import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkCursor, checkLimit } from '../../../validate.ts';
import { pageFlags } from '../../_shared.ts';

export default defineCommand({
  name: 'admin tokens list',
  summary:
    'Machine tokens, newest first, without their secrets (revoked and expired ones too): { items, next_cursor }.',
  flags: { ...pageFlags },
  run: ({ flags, context }) =>
    api(context).call('listTokens', {
      query: { limit: checkLimit(flags.limit), after: checkCursor(flags.after) },
    }),
});
