import { api } from '../../api.ts';
import { defineCommand } from '../../command.ts';
import {
  checkId,
  checkInteger,
  checkSelection,
  overridesFrom,
  previewRevisionsFrom,
} from '../../validate.ts';
import { compositionId, selectionFlags, selectionNotes } from '../_shared.ts';
import { imageComponent } from './_component.ts';

export default defineCommand({
  name: 'composition update',
  summary:
    'Roll out a new complete override set (asynchronous). Not a patch: omitted components return to the baseline.',
  notes: [
    ...selectionNotes,
    'Give the full desired set every time; --inherit-all removes every override.',
    'TTL and message isolation cannot change. A stale --expected-generation exits 4 (409).',
  ],
  positionals: compositionId,
  flags: {
    'expected-generation': {
      type: 'string',
      required: true,
      value: 'int',
      description: "The composition's current generation (svc composition get <id> | jq .generation).",
    },
    ...selectionFlags,
  },
  async run({ flags, args, context }) {
    const id = checkId(args.id);
    const expectedGeneration = checkInteger(flags['expected-generation'], '--expected-generation', {
      min: 1,
      max: Number.MAX_SAFE_INTEGER,
    });
    const revisions = previewRevisionsFrom(flags['expected-preview-revision']);
    const selection = checkSelection(flags);
    const client = api(context);
    const project = async () => (await client.call('getComposition', { path: { id } })).project;
    const component = await imageComponent(flags, selection, project, client, context);
    return client.call('updateComposition', {
      path: { id },
      body: {
        expected_generation: expectedGeneration,
        overrides: overridesFrom(selection, component),
        expected_preview_revisions: revisions,
      },
    });
  },
});
