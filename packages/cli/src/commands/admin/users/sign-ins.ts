import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkCursor, checkLimit } from '../../../validate.ts';
import { pageFlags } from '../../_shared.ts';
import { checkUsername, username } from './_shared.ts';

export default defineCommand({
  name: 'admin users sign-ins',
  summary:
    "A person's browser sessions and CLI sign-ins that still work, newest first: { items, next_cursor }.",
  notes: ['End them with svc admin users end-sign-ins (one with --id, or all).'],
  positionals: username,
  flags: { ...pageFlags },
  run: ({ args, flags, context }) =>
    api(context).call('listSignIns', {
      path: { username: checkUsername(args.name) },
      query: { limit: checkLimit(flags.limit), after: checkCursor(flags.after) },
    }),
});
