import type { Auth } from '@svc/core';
import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import type { Context } from '../../../context.ts';
import { CliError, ExitCode, LocalCode, localProblem } from '../../../errors.ts';
import { checkUsername, username } from './_shared.ts';

/** The person as stored, read page by page (the API lists people; it has no read of one). */
async function person(context: Context, name: string): Promise<Auth.UserView | null> {
  let after: string | undefined;
  do {
    const page = await api(context).call('listUsers', { query: { limit: 200, after } });
    const found = page.items.find((user) => user.username === name);
    if (found) return found;
    after = page.next_cursor ?? undefined;
  } while (after !== undefined);
  return null;
}

export default defineCommand({
  name: 'admin users disable',
  summary: 'Disable a person, keeping their grants: every sign-in they have ends, new ones are refused.',
  notes: ['svc admin users set <name> with their grants enables them again. Prints the person.'],
  positionals: username,
  flags: {},
  async run({ args, context }) {
    const name = checkUsername(args.name);
    const user = await person(context, name);
    if (!user)
      throw new CliError(
        localProblem(LocalCode.UnknownReference, `no person named ${name} (svc admin users list)`, [
          { path: '<name>', message: 'no such person' },
        ]),
        ExitCode.Failure,
      );
    return api(context).call('saveUser', {
      path: { username: name },
      body: { grants: user.grants, disabled: true },
    });
  },
});
