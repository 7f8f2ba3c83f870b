import { Auth } from '@svc/core';
import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { readTextFile } from '../../../files.ts';
import { checkWith } from '../../../validate.ts';
import { checkGrants, grantFlag } from '../_grants.ts';
import { checkUsername, username } from './_shared.ts';

export default defineCommand({
  name: 'admin users set',
  summary:
    'Create or replace a person: their grants, and optionally a password or, in oidc mode, their provider subject.',
  notes: [
    'Replaces the person’s grants with the --grant flags given (none: no grants); --disabled disables, its absence enables.',
    'A new password, or disabling, ends every sign-in they have. Prints the person.',
  ],
  positionals: username,
  flags: {
    ...grantFlag,
    'password-file': {
      type: 'string',
      value: 'path',
      description:
        'A file holding the new password (password mode; at least 12 characters); - reads standard input.',
    },
    disabled: {
      type: 'boolean',
      description: 'Disable the person: their sign-ins end, new ones are refused.',
    },
    'oidc-subject': {
      type: 'string',
      value: 'sub',
      description:
        'oidc mode: the identity provider’s subject of a person not yet signed in. Fixed once set.',
    },
  },
  async run({ args, flags, context }) {
    const name = checkUsername(args.name);
    const grants = checkGrants(flags.grant);
    const passwordFile = flags['password-file'];
    // The password never appears on the command line, where other users of the machine see it.
    const password =
      passwordFile === undefined
        ? undefined
        : checkWith(
            Auth.SaveUserBody.entries.password.wrapped,
            (await readTextFile(passwordFile, '--password-file')).trim(),
            '--password-file',
          );
    const subject = flags['oidc-subject'];
    return api(context).call('saveUser', {
      path: { username: name },
      body: {
        grants,
        disabled: flags.disabled === true,
        ...(password === undefined ? {} : { password }),
        ...(subject === undefined ? {} : { oidc_subject: subject }),
      },
    });
  },
});
