import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

/** `get` and `inspect` are one command under two names. */
export function readCommand(name: string, summary: string) {
  return defineCommand({
    name,
    summary,
    positionals: compositionId,
    flags: {},
    run: ({ args, context }) => api(context).call('getComposition', { path: { id: checkId(args.id) } }),
  });
}

export default readCommand('composition get', 'Desired and observed state of a composition.');
