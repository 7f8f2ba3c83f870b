import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { checkId } from '../../validate.ts';
import { bindingFlags, bindingOf } from './_flags.ts';

export default defineCommand({
  name: 'frontend bind',
  summary: 'Bind a static frontend revision to a composition of the project; prints the binding.',
  notes: [
    'Binding to another composition gives the binding its next version and clears what was published.',
    'The composition must exist in the project and not be expired or destroyed.',
  ],
  flags: {
    ...bindingFlags,
    composition: { type: 'string', required: true, value: 'id', description: 'Composition id.' },
  },
  run: ({ flags, context }) =>
    api(context).call('bindFrontend', {
      path: bindingOf(flags),
      body: { composition_id: checkId(flags.composition, '--composition') },
    }),
});
