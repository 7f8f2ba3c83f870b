import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { compositionId } from '../_shared.ts';

export default defineCommand({
  name: 'composition diagnosis',
  summary: 'Why a composition is where it is: state, blockers, notes, verification, evidence.',
  notes: ['Unknown or unavailable coverage is reported as such, never as success.'],
  positionals: compositionId,
  flags: {},
  run: ({ args, context }) => api(context).call('getDiagnosis', { path: { id: checkId(args.id) } }),
});
