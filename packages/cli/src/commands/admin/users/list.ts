import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkCursor, checkLimit } from '../../../validate.ts';
import { pageFlags } from '../../_shared.ts';

export default defineCommand({
  name: 'admin users list',
  summary: 'People the service knows, by name, with their grants (never a password): { items, next_cursor }.',
  flags: { ...pageFlags },
  run: ({ flags, context }) =>
    api(context).call('listUsers', {
      query: { limit: checkLimit(flags.limit), after: checkCursor(flags.after) },
    }),
});
