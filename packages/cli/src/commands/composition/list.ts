import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkCursor, checkLimit, checkName } from '../../validate.ts';
import { pageFlags } from '../_shared.ts';

export default defineCommand({
  name: 'composition list',
  summary: 'Compositions not yet destroyed, newest first: { items, next_cursor }.',
  flags: {
    project: { type: 'string', description: 'Only this project.' },
    ...pageFlags,
  },
  run: ({ flags, context }) =>
    api(context).call('listCompositions', {
      query: {
        project: flags.project === undefined ? undefined : checkName(flags.project, '--project'),
        limit: checkLimit(flags.limit),
        after: checkCursor(flags.after),
      },
    }),
});
