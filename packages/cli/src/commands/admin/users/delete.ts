import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkUsername, username } from './_shared.ts';

export default defineCommand({
  name: 'admin users delete',
  summary:
    'Delete a person: their sessions and sign-ins stop at their next request. Prints { username, deleted: true }.',
  notes: ['The name created again later is someone else, who inherits nothing.'],
  positionals: username,
  flags: {},
  async run({ args, context }) {
    const name = checkUsername(args.name);
    await api(context).call('deleteUser', { path: { username: name } });
    return { username: name, deleted: true };
  },
});
