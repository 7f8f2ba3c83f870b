import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import { readJsonFile } from '../../files.ts';
import { fileFlag } from '../_shared.ts';

export default defineCommand({
  name: 'catalog apply',
  summary: 'Register projects, components and baselines atomically; an invalid manifest writes nothing.',
  notes: ['stdout is { changed, projects: [{ name, version, changed, revisions }] }.'],
  flags: fileFlag,
  run: async ({ flags, context }) =>
    api(context).call('applyCatalog', { body: await readJsonFile(flags.file) }),
});
