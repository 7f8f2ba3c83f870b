import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkCursor, checkLimit, checkName } from '../../validate.ts';
import { pageFlags } from '../_shared.ts';

export default defineCommand({
  name: 'pr-preview list',
  summary: "A project's pull-request previews, newest first: { items, next_cursor }.",
  flags: {
    project: { type: 'string', required: true, description: 'Catalog project.' },
    ...pageFlags,
  },
  run: ({ flags, context }) =>
    api(context).call('listForgePreviews', {
      query: {
        project: checkName(flags.project, '--project'),
        limit: checkLimit(flags.limit),
        after: checkCursor(flags.after),
      },
    }),
});
