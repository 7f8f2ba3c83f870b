import { Builds } from '@svc/core';
import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkCursor, checkLimit, checkName, checkWith } from '../../validate.ts';
import { pageFlags } from '../_shared.ts';

const { repository: Repository } = Builds.PublishBuildBody.entries;

export default defineCommand({
  name: 'pr-preview deliveries',
  summary:
    'Webhook deliveries the service received, newest first, and what became of each: { items, next_cursor }.',
  notes: [
    'state: received, deferred (rate-limited), processed, ignored (an event previews do not act on)',
    'or failed (error says why). A pull request with no delivery here never reached the service.',
  ],
  flags: {
    project: {
      type: 'string',
      description: "Only deliveries for repositories this project's policies name.",
    },
    repository: {
      type: 'string',
      value: 'owner/name',
      description: 'Only deliveries concerning this repository.',
    },
    ...pageFlags,
  },
  run: ({ flags, context }) =>
    api(context).call('listForgeDeliveries', {
      query: {
        project: flags.project === undefined ? undefined : checkName(flags.project, '--project'),
        repository:
          flags.repository === undefined
            ? undefined
            : checkWith(Repository, flags.repository, '--repository'),
        limit: checkLimit(flags.limit),
        after: checkCursor(flags.after),
      },
    }),
});
