import { api } from '../../../api.ts';
import { defineCommand } from '../../../command.ts';
import { checkId } from '../../../validate.ts';

export default defineCommand({
  name: 'admin tokens revoke',
  summary: 'Revoke a machine token at once; prints it, revoked_at set. Revoking twice is no error.',
  notes: ['From then on its holder is answered 401 unauthenticated, whose challenge says it was revoked.'],
  positionals: { id: { description: 'Token id, e.g. tok-… (svc admin tokens list).' } },
  flags: {},
  run: ({ args, context }) => api(context).call('revokeToken', { path: { id: checkId(args.id) } }),
});
