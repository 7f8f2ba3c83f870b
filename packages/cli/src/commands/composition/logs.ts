import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkDuration, checkId, checkInteger, checkName, demoComponent } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export const maxTailLines = 1000;
export const maxLogBytes = 262144;
const maxSinceSeconds = 24 * 3600;

export default defineCommand({
  name: 'composition logs',
  summary: 'A bounded log snapshot of one component (not a stream).',
  notes: [
    'An unmodified baseline component answers source "shared-baseline" with composition_filtered false:',
    'those logs are shared by every preview on the baseline.',
  ],
  positionals: compositionId,
  flags: {
    component: { type: 'string', default: demoComponent.component, description: 'Logical component name.' },
    'tail-lines': {
      type: 'string',
      value: 'int',
      default: '200',
      description: `Last lines per pod, at most ${maxTailLines}.`,
    },
    'max-bytes': {
      type: 'string',
      value: 'int',
      default: '65536',
      description: `Cap on the total text, at most ${maxLogBytes}.`,
    },
    since: {
      type: 'string',
      value: 'duration',
      description: 'Only lines this recent: whole seconds such as 90s, 15m, 1h; at most 24h.',
    },
    previous: { type: 'boolean', description: 'The last terminated container instance instead.' },
  },
  run({ flags, args, context }) {
    const id = checkId(args.id);
    const component = checkName(flags.component, '--component');
    return api(context).call('getComponentLogs', {
      path: { id, component },
      query: {
        tail_lines: checkInteger(flags['tail-lines'], '--tail-lines', { min: 1, max: maxTailLines }),
        max_bytes: checkInteger(flags['max-bytes'], '--max-bytes', { min: 1, max: maxLogBytes }),
        since_seconds:
          flags.since === undefined
            ? undefined
            : checkDuration(flags.since, '--since', { min: 1, max: maxSinceSeconds }),
        previous: flags.previous ? true : undefined,
      },
    });
  },
});
