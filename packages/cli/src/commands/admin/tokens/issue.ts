import { Auth } from '@svc/core';
import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { usageError } from '../../../errors.ts';
import { readJsonFile } from '../../../files.ts';
import { checkFileBody, checkInteger, checkWith } from '../../../validate.ts';
import { checkGrants, grantFlag } from '../_grants.ts';

export default defineCommand({
  name: 'admin tokens issue',
  summary: 'Issue a machine token; prints it with its secret (token), which cannot be read again.',
  notes: [
    'Either --name with one --grant or more, or --file with the POST /v1/tokens body (for publisher grants naming components).',
    'Its subject is token:<name>; it expires in 90 days unless --expires-in-days says otherwise (at most 365).',
  ],
  flags: {
    name: {
      type: 'string',
      value: 'a-z0-9._-',
      description: 'The token’s name (its subject is token:<name>).',
    },
    ...grantFlag,
    'expires-in-days': { type: 'string', value: 'days', description: 'Lifetime, 1–365 (server default 90).' },
    file: { type: 'string', value: 'path', description: 'The whole body as JSON; - reads standard input.' },
  },
  async run({ flags, context }) {
    const fromFlags =
      flags.name !== undefined || flags.grant.length > 0 || flags['expires-in-days'] !== undefined;
    if (flags.file !== undefined && fromFlags)
      throw usageError('--file excludes --name, --grant and --expires-in-days');
    if (flags.file !== undefined) {
      const body = await readJsonFile(flags.file);
      checkFileBody(Auth.IssueTokenBody, body);
      return api(context).call('issueToken', { body });
    }
    if (flags.name === undefined || flags.grant.length === 0)
      throw usageError('give --name and at least one --grant, or --file');
    const days = flags['expires-in-days'];
    return api(context).call('issueToken', {
      body: {
        name: checkWith(Auth.IssueTokenBody.entries.name, flags.name, '--name'),
        grants: checkGrants(flags.grant),
        ...(days === undefined
          ? {}
          : { expires_in_days: checkInteger(days, '--expires-in-days', { min: 1, max: 365 }) }),
      },
    });
  },
});
