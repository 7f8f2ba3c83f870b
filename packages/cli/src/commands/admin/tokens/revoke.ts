import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkId } from '../../../validate.ts';

export default defineCommand({
  name: 'admin tokens revoke',
  summary: 'Revoke a machine token at once; prints it, revoked_at set. Revoking twice is no error.',
  notes: ['Its holder is answered 401 token_revoked from then on.'],
  positionals: { id: { description: 'Token id, e.g. tok-… (svc admin tokens list).' } },
  flags: {},
  run: ({ args, context }) => api(context).call('revokeToken', { path: { id: checkId(args.id) } }),
});
