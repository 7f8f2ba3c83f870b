import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export default defineCommand({
  name: 'composition wake',
  summary: "Wake a sleeping composition: its forks come up now and stay up for its sleep's after.",
  notes: [
    'stdout is the composition as it stands after the request (sleep.state waking; awake or waking already: unchanged).',
    'A composition that never sleeps is a conflict (sleep_not_enabled): exit 4.',
  ],
  positionals: compositionId,
  flags: {},
  run: ({ args, context }) => api(context).call('wakeComposition', { path: { id: checkId(args.id) } }),
});
