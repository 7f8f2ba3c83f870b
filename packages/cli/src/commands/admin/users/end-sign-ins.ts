import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { invalidArgument } from '../../../errors.ts';
import { checkUsername, username } from './_shared.ts';

export default defineCommand({
  name: 'admin users end-sign-ins',
  summary: "End a person's sign-ins: all of them, or one with --id. Refused from their next request on.",
  notes: [
    'All: every session and CLI sign-in the person has now stops working (new sign-ins work).',
    'Prints { username, ended: "all" | <id> }.',
  ],
  positionals: username,
  flags: {
    id: {
      type: 'string',
      value: 'ses-…|sig-…',
      description: 'Only this sign-in (svc admin users sign-ins).',
    },
  },
  async run({ args, flags, context }) {
    const name = checkUsername(args.name);
    if (flags.id !== undefined && !/^(ses|sig)-[a-z0-9]{1,40}$/.test(flags.id)) {
      throw invalidArgument('--id', 'must be a sign-in id from svc admin users sign-ins (ses-… or sig-…)');
    }
    if (flags.id === undefined) await api(context).call('endSignIns', { path: { username: name } });
    else await api(context).call('endSignIn', { path: { username: name, id: flags.id } });
    return { username: name, ended: flags.id ?? 'all' };
  },
});
